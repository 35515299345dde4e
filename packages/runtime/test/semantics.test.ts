import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import { createRuntime, loadBundle, type Bundle, type Runtime } from '../src/index.js';

// Semantics of issue #13 that built but ran differently from the spec.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-semantics-'));
const runtimes: Runtime[] = [];
afterAll(async () => {
  for (const runtime of runtimes) await runtime.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Builds a package of the given sources (file name -> text) with these exports. */
async function build(name: string, exports: string[], sources: Record<string, string>, requires: string[] = []): Promise<Bundle> {
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'plugin.json'),
    JSON.stringify({
      $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
      name: `sem.${name}`,
      version: '1',
      extensions: { 'ai.strawberry.berry': { exports, ...(requires.length ? { requires } : {}) } },
    }),
  );
  for (const [file, text] of Object.entries(sources)) writeFileSync(path.join(dir, file), text);
  const built = createCompiler({}).build(path.join(dir, 'plugin.json'));
  if (!built.ok || !built.bundle) throw new Error(JSON.stringify(built.diagnostics));
  return loadBundle(built.bundle.bytes);
}

const PORT = 'port:\n  input: false\n  output: true\n  limits:\n    bytes: 1000\n    messages: 10\n    pending: 10\n';
const code = (name: string, front: string, body: string) => `---\nname: ${name}\ndescription: ${name}.\nlanguage: javascript\n${front}---\n${body}\n`;

describe('RUN-9, RUN-15: next with output: true (spec: "next.output:true requires the caller output port")', () => {
  it('forwards the successor publications through the caller port only with output: true', async () => {
    const bundle = await build('next-output', ['loud', 'quiet'], {
      'loud.md': code('loud', `${PORT}next:\n  to: speaker\n  output: true\n`, 'export default function () { return { n: 1 }; }'),
      'quiet.md': code('quiet', `${PORT}next:\n  to: speaker\n`, 'export default function () { return { n: 2 }; }'),
      'speaker.md': code('speaker', PORT, 'export default async function (input, tools, context) { await context.emit({ hello: input.n }); return "spoken"; }'),
    });
    const runtime = createRuntime();
    runtimes.push(runtime);
    const preparation = runtime.prepare(bundle);
    const loud = await runtime.result((await runtime.start(preparation, { export: 'loud' })).executionId);
    expect(loud).toMatchObject({ status: 'completed', output: 'spoken' });
    expect(loud.publications.map((p) => p.value)).toEqual([{ hello: 1 }]);
    const quiet = await runtime.result((await runtime.start(preparation, { export: 'quiet' })).executionId);
    expect(quiet).toMatchObject({ status: 'completed', output: 'spoken' });
    expect(quiet.publications).toEqual([]);
  });
});

describe('RUN-12: permissions: tools and catalogs; catalog() (spec: "Code Tool definitions")', () => {
  const discover = (permissions: string) =>
    code(
      `discover.${permissions}`,
      `catalog: true\npermissions: ${permissions}\n`,
      'export default async function (input, tools, context) { const listed = await context.catalog(); return { listed, callable: Object.keys(tools).sort() }; }',
    );

  it('selects supplied non-contextual external tools with `tools`, no catalog supplier with `catalogs`; catalog() gives binding IDs and contract identities, never the readers', async () => {
    const bundle = await build('permissions', ['discover.tools', 'discover.catalogs'], { 'tools.md': discover('tools'), 'catalogs.md': discover('catalogs') });
    const clock = { description: 'The time.', input: { type: 'object' }, output: { type: 'string' }, invoke: () => 'noon' };
    const runtime = createRuntime({ tools: { 'clock.now': clock, 'runtime.user.profile.read': () => ({}) } });
    runtimes.push(runtime);
    const preparation = runtime.prepare(bundle, { grants: ['clock.now', 'runtime.user.profile.read', 'runtime.ui.publish'] });
    const tools = await runtime.result((await runtime.start(preparation, { export: 'discover.tools' })).executionId);
    expect(tools).toMatchObject({
      status: 'completed',
      output: {
        callable: ['clock.now'],
        listed: [
          {
            name: 'clock.now',
            description: 'The time.',
            input: { type: 'object' },
            output: { type: 'string' },
            binding: 'clock.now',
            contract: expect.stringMatching(/^sha256-[0-9a-f]{64}$/),
          },
        ],
      },
    });
    const catalogs = await runtime.result((await runtime.start(preparation, { export: 'discover.catalogs' })).executionId);
    expect(catalogs).toMatchObject({ status: 'completed', output: { callable: [], listed: [] } });
  });
});

describe('RUN-6, CLS-3: classification results (spec: "Models")', () => {
  const TRIAGE =
    '---\nname: triage\ndescription: Answers questions about a ticket.\nmodel:\n  select:\n    operation: classification\n---\nAnswer each question about the ticket.\n';
  const MOOD =
    '---\nname: mood\ndescription: The mood of a text.\nmodel:\n  select:\n    operation: classification\noutput:\n  type: object\n  propertyNames:\n    enum:\n      - calm\n      - upset\n      - unsure\n  additionalProperties:\n    type: number\n    minimum: 0\n    maximum: 1\n---\nGive each mood its probability.\n';

  async function classify(answer: unknown, target: string, input: unknown) {
    const bundle = await build('classify', ['triage', 'mood'], { 'triage.md': TRIAGE, 'mood.md': MOOD });
    const provider = {
      generate: async () => ({ text: 'unused', finish: 'stop' as const }),
      classify: async () => ({ output: answer, finish: 'stop' as const, usage: { inputTokens: 12, outputTokens: 3 } }),
    };
    const runtime = createRuntime({ providers: { judge: provider } });
    runtimes.push(runtime);
    const preparation = runtime.prepare(bundle, { models: { default: { provider: 'judge' } } });
    return runtime.result((await runtime.start(preparation, { export: target }, input)).executionId);
  }

  it('without output: {state, questions} in, {answers, usage, metadata} out, every question answered', async () => {
    const input = { state: { ticket: 'Printer on fire' }, questions: { urgent: { kind: 'noul' }, team: { kind: 'choice', choices: ['it', 'facilities'] } } };
    const done = await classify({ answers: { urgent: true, team: 'facilities' }, metadata: { model: 'judge-1' } }, 'triage', input);
    expect(done).toMatchObject({
      status: 'completed',
      output: { answers: { urgent: true, team: 'facilities' }, usage: { inputTokens: 12, outputTokens: 3 }, metadata: { model: 'judge-1' } },
    });
    const partial = await classify({ answers: { urgent: true } }, 'triage', input);
    expect(partial).toMatchObject({
      status: 'failed',
      error: { code: 'invalid-output', message: 'Unexpected answers of `triage` for urgent, expected exactly one answer per question (team, urgent)' },
    });
    const bare = await classify({ answers: {} }, 'triage', { ticket: 'x' });
    expect(bare).toMatchObject({ status: 'failed', error: { code: 'invalid-input' } });
  });

  it('checks the question kinds: noul, choice and score questions before inference, their answers after', async () => {
    const questions = {
      urgent: { kind: 'noul' },
      team: { kind: 'choice', choices: ['it', 'facilities'] },
      severity: { kind: 'score', description: 'How bad, 0 to 1.' },
    };
    const input = { state: { ticket: 'Printer on fire' }, questions };
    expect(await classify({ answers: { urgent: null, team: 'it', severity: 0.9 } }, 'triage', input)).toMatchObject({
      status: 'completed',
      output: { answers: { urgent: null, team: 'it', severity: 0.9 } },
    });
    const wrong = async (answers: Record<string, unknown>) =>
      (await classify({ answers: { urgent: true, team: 'it', severity: 0.5, ...answers } }, 'triage', input)) as {
        status: string;
        error?: { code: string; message: string };
      };
    expect((await wrong({ team: 'plumbing' })).error).toEqual({
      code: 'invalid-output',
      message: 'Unexpected answer "plumbing" of `triage` to choice question `team`, expected one of "it", "facilities"',
    });
    expect((await wrong({ severity: 7 })).error?.message).toBe('Unexpected answer 7 of `triage` to score question `severity`, expected a number from 0 to 1');
    expect((await wrong({ urgent: 'yes' })).error?.message).toBe('Unexpected answer "yes" of `triage` to noul question `urgent`, expected true, false or null');
    const asked = async (q: unknown) =>
      (await classify({ answers: { q: null } }, 'triage', { state: {}, questions: { q } })) as {
        status: string;
        calls: { kind: string }[];
        error?: { code: string; message: string };
      };
    for (const [question, message] of [
      [{ kind: 'yesno' }, 'Unexpected kind "yesno" in question `q` of classification `triage`, expected an object with `kind` noul, choice or score'],
      ['urgent?', 'Unexpected value in question `q` of classification `triage`, expected an object with `kind` noul, choice or score'],
      [
        { kind: 'choice', choices: ['only'] },
        'Unexpected `choices` in question `q` of classification `triage`, expected at least two distinct nonempty strings',
      ],
      [
        { kind: 'score', choices: ['a', 'b'] },
        'Unexpected field `choices` in question `q` of classification `triage`, expected only description, kind for a score question',
      ],
    ] as const) {
      const refused = await asked(question);
      expect(refused.error).toEqual({ code: 'invalid-input', message });
      expect(refused.calls.some((c) => c.kind === 'model')).toBe(false);
    }
  });

  it('the scripted provider answers each question by its kind', async () => {
    const bundle = await build('classify', ['triage', 'mood'], { 'triage.md': TRIAGE, 'mood.md': MOOD });
    const runtime = createRuntime();
    runtimes.push(runtime);
    const input = { state: {}, questions: { urgent: { kind: 'noul' }, team: { kind: 'choice', choices: ['it', 'facilities'] }, severity: { kind: 'score' } } };
    const outcome = await runtime.result((await runtime.start(runtime.prepare(bundle), { export: 'triage' }, input)).executionId);
    expect(outcome).toMatchObject({ status: 'completed', output: { answers: { urgent: null, team: 'it', severity: 0 } } });
  });

  it('a distribution gives every choice its probability', async () => {
    expect(await classify({ calm: 0.7, upset: 0.2, unsure: 0.1 }, 'mood', 'fine, thanks')).toMatchObject({
      status: 'completed',
      output: { calm: 0.7, upset: 0.2, unsure: 0.1 },
    });
    expect(await classify({ calm: 0.9, upset: 0.1 }, 'mood', 'fine, thanks')).toMatchObject({
      status: 'failed',
      error: { code: 'invalid-output', message: 'Unexpected distribution from `mood` without "unsure", expected every choice with its probability' },
    });
  });
});

describe('RUN-12, TPL-1: tools of included instructions (spec: "Double-brace source names include instructions at build time")', () => {
  it('are merged into the including routine offered tools, and must be granted', async () => {
    const bundle = await build(
      'includes',
      ['writer'],
      {
        'rules.md': '---\nname: rules\ndescription: Shared rules.\ntools:\n  - clock.now\n---\nAlways state the time.\n',
        'writer.md': '---\nname: writer\ndescription: Writes a note.\nmodel:\n  select:\n    operation: generation\n---\nWrite a note.\n\n{{ rules }}\n',
      },
      ['clock.now'],
    );
    const offered: string[][] = [];
    const provider = {
      async generate(request: { tools: { name: string }[]; messages: { role: string; content?: string }[] }) {
        offered.push(request.tools.map((t) => t.name));
        const result = request.messages.find((m) => m.role === 'tool');
        return result
          ? { text: `Noted at ${result.content}`, finish: 'stop' as const }
          : { toolCalls: [{ id: 't1', name: 'clock.now', input: {} }], finish: 'tool_calls' as const };
      },
    };
    const runtime = createRuntime({ providers: { p: provider }, tools: { 'clock.now': () => 'noon' } });
    runtimes.push(runtime);
    expect(() => runtime.prepare(bundle, { models: { default: { provider: 'p' } } })).toThrow(/Unexpected external tool `clock\.now` that is not granted/);
    const preparation = runtime.prepare(bundle, { grants: ['clock.now'], models: { default: { provider: 'p' } } });
    const outcome = await runtime.result((await runtime.start(preparation, { export: 'writer' })).executionId);
    expect(outcome).toMatchObject({ status: 'completed', output: 'Noted at noon' });
    expect(offered).toEqual([['clock.now'], ['clock.now']]);
  });
});
