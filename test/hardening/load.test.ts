import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompiler } from '@berrypack/compiler';
import { callRecords, createMemoryJournal, createRuntime, DEFAULT_LIMITS, loadBundle, type Outcome } from '@berrypack/runtime';
import { recordFigure, SOAK } from '../support/fuzz.js';
import { cleanup, tempDir } from '../support/temp.js';

/**
 * Load: one runtime runs many concurrent executions of a small agent (a code routine that
 * calls a model routine, whose scripted decisions call a code routine in turn) without a
 * failure, each within the declared limits, each with a journal of its own. `npm test` runs
 * 100; scripts/soak.mjs runs 1,000 and records memory before and after.
 */

const EXECUTIONS = SOAK ? 1_000 : 100;
const SCHEMA = 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json';
const root = tempDir('berrypack-load-');
afterAll(() => cleanup(root));

const FILES: Record<string, string> = {
  'plugin.json': JSON.stringify({
    $schema: SCHEMA,
    name: 'load.agent',
    version: '1',
    extensions: { 'ai.strawberry.berry': { agents: { planner: { title: 'Planner', description: 'Plans, thinks and scores.', entry: 'plan' } } } },
  }),
  'plan.md': [
    '---',
    'name: plan',
    'description: Asks the model, then scores its summary.',
    'language: javascript',
    'input:',
    '  type: object',
    '  required:',
    '    - topic',
    '  properties:',
    '    topic:',
    '      type: string',
    'tools:',
    '  - think',
    '  - score',
    '---',
    'export default async function plan(input, tools) {',
    '  const thought = await tools.think({ topic: input.topic });',
    '  const [a, b] = await Promise.all([tools.score({ text: thought.summary }), tools.score({ text: input.topic })]);',
    '  return { topic: input.topic, summary: thought.summary, score: a.score + b.score, at: Date.now() > 0 };',
    '}',
    '',
  ].join('\n'),
  'think.md': [
    '---',
    'name: think',
    'description: Thinks about a topic.',
    'model:',
    '  select:',
    '    operation: generation',
    'input:',
    '  type: object',
    '  properties:',
    '    topic:',
    '      type: string',
    'output:',
    '  type: object',
    '  required:',
    '    - summary',
    '  properties:',
    '    summary:',
    '      type: string',
    'tools:',
    '  - score',
    '---',
    'Think about {{ $.input.topic }}, score a draft, then summarize.',
    '',
  ].join('\n'),
  'score.md': '---\nname: score\ndescription: Scores a text.\nlanguage: javascript\n---\nexport default (input) => ({ score: input.text.length });\n',
};

function mb(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}

describe('load', () => {
  it(
    `runs ${EXECUTIONS} concurrent executions of a code + model agent without a failure, within the limits`,
    async () => {
      const dir = path.join(root, 'agent');
      for (const [rel, text] of Object.entries(FILES)) {
        mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        writeFileSync(path.join(dir, rel), text);
      }
      const built = createCompiler({ store: path.join(root, 'store') }).build(path.join(dir, 'plugin.json'));
      expect(built.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const bundle = await loadBundle(built.bundle!.bytes);
      const journal = createMemoryJournal();
      const limits = { timeoutMs: 60_000 };
      const runtime = createRuntime({ journal, limits });
      const preparation = runtime.prepare(bundle, {
        models: {
          default: {
            provider: 'scripted',
            script: { think: [{ toolCalls: [{ name: 'score', input: { text: 'a draft' } }] }, { output: { summary: 'All good.' } }] },
          },
        },
      });

      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      const before = process.memoryUsage();
      const started = performance.now();
      const ids = await Promise.all(Array.from({ length: EXECUTIONS }, (_v, i) => runtime.start(preparation, { agent: 'planner' }, { topic: `topic ${i}` })));
      const outcomes: Outcome[] = await Promise.all(ids.map(({ executionId }) => runtime.result(executionId)));
      const ms = performance.now() - started;
      await runtime.close();
      gc?.();
      const after = process.memoryUsage();

      const failures = outcomes.filter((o) => o.status !== 'completed');
      expect(failures.map((o) => (o.status === 'failed' ? `${o.error.code}: ${o.error.message}` : ''))).toEqual([]);
      outcomes.forEach((o, i) => {
        expect(o).toMatchObject({ status: 'completed', output: { topic: `topic ${i}`, summary: 'All good.', score: 9 + `topic ${i}`.length, at: true } });
        // Every call recorded, and no more than one allowance admits.
        expect(o.calls.map((c) => `${c.id} ${c.kind} ${c.name}`)).toEqual([
          'c1 entry plan',
          'c1.1 tool think',
          'c1.1.1 model think',
          'c1.1.2 tool score',
          'c1.1.3 model think',
          'c1.2 tool score',
          'c1.3 tool score',
        ]);
        expect(o.calls.length).toBeLessThanOrEqual(DEFAULT_LIMITS.calls);
      });
      // Each execution's journal is its own, and the shared one holds exactly the same entries.
      const ownEntries = new Set(ids.map(({ executionId }) => executionId));
      expect(new Set(journal.entries.map((e) => e.executionId))).toEqual(ownEntries);
      for (const { executionId } of ids.slice(0, 10)) {
        const own = journal.entries.filter((e) => e.executionId === executionId);
        expect(callRecords(own)).toHaveLength(7);
        expect(own.at(-1)).toMatchObject({ type: 'end', status: 'completed' });
      }
      expect(ms).toBeLessThan(10 * limits.timeoutMs);
      recordFigure('load', {
        executions: EXECUTIONS,
        failures: failures.length,
        callsEach: 7,
        ms: Math.round(ms),
        gc: gc !== undefined,
        rssMbBefore: mb(before.rss),
        rssMbAfter: mb(after.rss),
        heapMbBefore: mb(before.heapUsed),
        heapMbAfter: mb(after.heapUsed),
        journalEntries: journal.entries.length,
      });
    },
    SOAK ? 600_000 : 60_000,
  );
});
