import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generatePackage } from '../../../bench/generate.mjs';
import { createCompiler } from '../src/index.js';
import { createBuildMemo, renderPackageModule, renderRoutineModule } from '../src/internal-adapter.js';
import { agePastRacyWindow } from '../../../test/support/stamps.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'berrypack-importer-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The module's default export, evaluated as the engine would. */
async function evaluate(code: string): Promise<Record<string, unknown>> {
  const module = (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as { default: Record<string, unknown> };
  return module.default;
}

describe('the importer module', () => {
  generatePackage(path.join(dir, 'pkg'), 100);
  const manifest = path.join(dir, 'pkg', 'plugin.json');

  it('writes a large value as one JSON.parse string and a small one as a literal, both evaluating to the summary', async () => {
    const compiler = createCompiler();
    const { summary } = compiler.build(manifest);
    if (!summary) throw new Error('the generated package did not build');
    const code = renderPackageModule(summary, { fileExpression: '"bundle.json"' });
    // 90 model routines' requirements are several KB: one string token for the bundler's parser.
    expect(JSON.stringify(summary.requirements).length).toBeGreaterThan(1024);
    // Single-quoted: the JSON's double quotes need no escape for the bundler's lexer to undo.
    expect(code).toContain(`requirements: JSON.parse('${JSON.stringify(summary.requirements)}'),`);
    expect(code).toContain(`exports: ${JSON.stringify(summary.exports)},`);
    const value = await evaluate(code);
    expect(value).toEqual({
      id: summary.id,
      name: summary.name,
      fileName: summary.fileName,
      file: 'bundle.json',
      agents: summary.agents,
      exports: summary.exports,
      requirements: summary.requirements,
    });
    // Deterministic: the same summary gives the same bytes.
    expect(renderPackageModule(summary, { fileExpression: '"bundle.json"' })).toBe(code);
  });

  it('quotes every character a large value can hold so the module evaluates to the same value', async () => {
    const { summary } = createCompiler().build(manifest);
    if (!summary) throw new Error('the generated package did not build');
    // Quotes, backslashes, escaped controls, line and paragraph separators, astral and lone surrogates.
    const tricky = `it's a \\ "quoted" \n line\r\t \u2028 \u2029 \u{1F353} \uD800 ' \\' \\\\ </script>`;
    const requirements = { ...summary.requirements, note: tricky.repeat(20) } as unknown as typeof summary.requirements;
    const code = renderPackageModule({ ...summary, requirements }, { fileExpression: '"bundle.json"' });
    expect(code).toContain("requirements: JSON.parse('");
    expect((await evaluate(code)).requirements).toEqual(requirements);
  });

  it('renders a rebuild whose requirements are unchanged from the same object, and an edited value afresh', async () => {
    // Files read within the racy window of their writing are read again, as new objects.
    await agePastRacyWindow();
    const compiler = createCompiler();
    const first = compiler.build(manifest).summary!;
    appendFileSync(path.join(dir, 'pkg', 'routines/ns0/model0.md'), '\nEdited.\n');
    const second = compiler.build(manifest).summary!;
    // The compiler keeps the object; the module is what a fresh render of the value gives.
    expect(second.requirements).toBe(first.requirements);
    const options = { fileExpression: '"bundle.json"' };
    expect(renderPackageModule(second, options)).toBe(renderPackageModule({ ...second, requirements: structuredClone(second.requirements) }, options));
    const edited = structuredClone(second.requirements) as unknown as { models: { routine: string }[] };
    edited.models[0]!.routine = 'ns0.renamed';
    const code = renderPackageModule({ ...second, requirements: edited as unknown as typeof second.requirements }, options);
    expect((await evaluate(code)).requirements).toEqual(edited);
  });

  it('a build memo takes a warmed compile as the first build of its manifest, once per bundler build', () => {
    let builds = 0;
    const compiler = createCompiler();
    const counting = { ...compiler, build: (...args: Parameters<typeof compiler.build>) => (builds++, compiler.build(...args)) };
    const memo = createBuildMemo(counting);
    memo.warm(manifest);
    memo.warm(manifest);
    expect(builds).toBe(1);
    const taken = memo.build(manifest);
    expect(taken.first).toBe(true);
    expect(taken.result.ok).toBe(true);
    expect(memo.build(manifest)).toEqual({ result: taken.result, first: false });
    expect(builds).toBe(1);
    // The next bundler build compiles again, warmed or not.
    memo.clear();
    expect(memo.build(manifest).first).toBe(true);
    expect(builds).toBe(2);
    // A warm that throws is dropped: the build that asks compiles again and throws there.
    const failing = createBuildMemo({
      ...compiler,
      build: () => (
        builds++,
        (() => {
          throw new Error('boom');
        })()
      ),
    });
    failing.warm(manifest);
    expect(() => failing.build(manifest)).toThrow('boom');
  });

  it('a build memo asks `reported` before each compile and passes what it said on as changedFiles', () => {
    const compiler = createCompiler();
    const seen: (string[] | undefined)[] = [];
    const recording = {
      ...compiler,
      build: (file: string, options?: Parameters<typeof compiler.build>[1]) => {
        seen.push(options?.changedFiles === undefined ? undefined : [...options.changedFiles]);
        return compiler.build(file, options);
      },
    };
    const answers: (string[] | undefined)[] = [['x'], ['a.md'], undefined, ['b.md']];
    const memo = createBuildMemo(recording, () => answers.shift());
    memo.build(manifest);
    // Nothing reported at the start of the next bundler build; the compile asks for the rest.
    memo.clear([]);
    memo.warm(manifest);
    memo.build(manifest);
    // A `reported` that cannot say makes the compile check every file; later reports count again.
    memo.clear([]);
    memo.build(manifest);
    memo.clear(['c.md']);
    memo.build(manifest);
    expect(seen).toEqual([undefined, ['a.md'], undefined, ['c.md', 'b.md']]);
    expect(answers).toEqual([]);
  });

  it('gives a routine module its schemas with the same values', async () => {
    const { summary } = createCompiler().build(manifest);
    if (!summary) throw new Error('the generated package did not build');
    const routine = summary.routines['ns0.model0']!;
    const value = await evaluate(renderRoutineModule(summary, 'ns0.model0', { fileExpression: '"bundle.json"', namedExports: true }));
    expect(value).toMatchObject({ name: 'ns0.model0', kind: routine.kind, input: routine.input ?? null, output: routine.output ?? null });
  });
});
