import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generatePackage } from '../../../bench/generate.mjs';
import { createCompiler } from '../src/index.js';
import { renderPackageModule, renderRoutineModule } from '../src/internal-adapter.js';

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

  it('gives a routine module its schemas with the same values', async () => {
    const { summary } = createCompiler().build(manifest);
    if (!summary) throw new Error('the generated package did not build');
    const routine = summary.routines['ns0.model0']!;
    const value = await evaluate(renderRoutineModule(summary, 'ns0.model0', { fileExpression: '"bundle.json"', namedExports: true }));
    expect(value).toMatchObject({ name: 'ns0.model0', kind: routine.kind, input: routine.input ?? null, output: routine.output ?? null });
  });
});
