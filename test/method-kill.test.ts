import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './support/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-method-kill-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const METHOD = `format: method/2
name: kill_test
goal: Survive a SIGKILL in the middle of a run.
inputs:
  names:
    type: list
    description: Who to write about.
    items:
      type: text
state:
  tally:
    type: number
    description: How many notes were ever counted.
    file: tally.json
    default: 0
steps:
  gather:
    each:
      name: inputs.names
    do: Write a note about {{name}}.
    out:
      note:
        type: text
        description: One note.
    check:
      present: note
  draft:
    in:
      notes: note
    do: Write a page from {{notes}}.
    out:
      page:
        type: file
        format: markdown
        description: The page.
    check:
      file: page
  summarize:
    in:
      notes: note
    do: Summarize {{notes}}.
    out:
      summary:
        type: text
        description: The summary.
  count:
    in:
      notes: note
    do: Add the notes to the tally.
    changes:
      - state.tally
  finish:
    in:
      summary: summary
      page: page
    after: count
    do: Finish with {{summary}}.
    out:
      final:
        type: text
        description: The end.
result:
  Summary: summary
  Page: page
  Final: final
`;

/**
 * The host process: the built runtime and compiler, an executor that appends every invocation
 * to a log file and, for the steps named in BLOCK, never returns (the process stays alive
 * until it is killed).
 */
const HOST = `
import { appendFileSync, readFileSync } from 'node:fs';
const [runtimeUrl, compilerUrl, action, dataDir, methodFile, log, runId, step] = process.argv.slice(2);
const { runMethod, resumeMethod, confirmStep, methodStatus } = await import(runtimeUrl);
const { checkMethod } = await import(compilerUrl);
const block = (process.env.BLOCK ?? '').split(',');
const executor = async (r) => {
  appendFileSync(log, r.step + (r.item ? '#' + r.item.index : '') + '\\n');
  if (block.includes(r.step)) {
    setInterval(() => {}, 1000);
    await new Promise(() => {});
  }
  if (r.step === 'gather') return { output: { note: 'note on ' + r.item.value } };
  if (r.step === 'draft') return { output: { page: '# Page\\n\\n' + r.inputs.notes.join('\\n') + '\\n' } };
  if (r.step === 'summarize') return { output: { summary: r.inputs.notes.length + ' notes' } };
  if (r.step === 'count') return { changes: { 'state.tally': r.changes[0].before + r.inputs.notes.length } };
  return { output: { final: 'done: ' + r.inputs.summary } };
};
const options = { dataDir, executor };
let run;
if (action === 'run') {
  const checked = checkMethod(methodFile, readFileSync(methodFile));
  run = await runMethod(checked.method, { ...options, runId, inputs: { names: ['Ada', 'Cy', 'Di'] } });
} else if (action === 'resume') run = await resumeMethod(runId, options);
else if (action === 'redo') run = await confirmStep(runId, { ...options, step, decision: 'redo' });
else run = await methodStatus(runId, { dataDir });
process.stdout.write(JSON.stringify(run) + '\\n');
`;

const runtime = pathToFileURL(path.join(ROOT, 'packages/runtime/dist/index.js')).href;
const compiler = pathToFileURL(path.join(ROOT, 'packages/compiler/dist/index.js')).href;
const host = path.join(tmp, 'host.mjs');
const methodFile = path.join(tmp, 'kill.method.yaml');
const log = path.join(tmp, 'invocations.log');
const dataDir = path.join(tmp, 'data');
const runId = 'run-kill-test';
const runJson = path.join(dataDir, 'runs', runId, 'run.json');
writeFileSync(host, HOST);
writeFileSync(methodFile, METHOD);

function args(action: string, step = ''): string[] {
  return [host, runtime, compiler, action, dataDir, methodFile, log, runId, step];
}
function inNewProcess(
  action: string,
  step?: string,
): { status: string; steps: Record<string, string>; pending: { step: string; kind: string }[]; result?: Record<string, unknown> } {
  const r = spawnSync(process.execPath, args(action, step), { encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as ReturnType<typeof inNewProcess>;
}
function invocations(): string[] {
  return readFileSync(log, 'utf8').trimEnd().split('\n');
}
function record(): { status: string; steps: Record<string, { status: string }> } | undefined {
  try {
    return JSON.parse(readFileSync(runJson, 'utf8')) as ReturnType<typeof record>;
  } catch {
    return undefined;
  }
}

describe('a method run killed mid-run (MTH-18)', () => {
  it('MTH-18: resumes in a new process without running completed steps again; a change killed mid-flight comes back uncertain', async () => {
    const child = spawn(process.execPath, args('run'), { env: { ...process.env, BLOCK: 'summarize,count' }, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_, signal) => resolve(signal)));
    // Wait, on the run records, until the first steps completed and the blocking ones started.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const steps = record()?.steps;
      if (
        steps &&
        steps['gather']!.status === 'passed' &&
        steps['draft']!.status === 'passed' &&
        steps['summarize']!.status === 'running' &&
        steps['count']!.status === 'running'
      )
        break;
      if (Date.now() > deadline) throw new Error(`the run did not reach the blocking steps: ${JSON.stringify(record())}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(record()!.status).toBe('running');
    expect(invocations().sort()).toEqual(['count', 'draft', 'gather#0', 'gather#1', 'gather#2', 'summarize']);
    const saved = JSON.parse(readFileSync(runJson, 'utf8')) as { steps: { draft: { outputs: { page: { path: string; sha256: string } } } } };

    expect(inNewProcess('status')).toMatchObject({
      status: 'needs_attention',
      steps: { gather: 'passed', draft: 'passed', summarize: 'pending', count: 'uncertain', finish: 'pending' },
      pending: [
        { step: 'summarize', kind: 'interrupted' },
        { step: 'count', kind: 'uncertain' },
      ],
    });

    const resumed = inNewProcess('resume');
    expect(resumed).toMatchObject({
      status: 'needs_attention',
      steps: { gather: 'passed', draft: 'passed', summarize: 'unchecked', count: 'uncertain', finish: 'pending' },
      pending: [{ step: 'count', kind: 'uncertain' }],
    });
    // The interrupted step without changes ran again; the uncertain write did not.
    expect(invocations().slice(6)).toEqual(['summarize']);
    expect(existsSync(path.join(dataDir, 'tally.json'))).toBe(false);

    const redone = inNewProcess('redo', 'count');
    expect(invocations().slice(7)).toEqual(['count', 'finish']);
    const page = saved.steps.draft.outputs.page;
    expect(redone).toEqual({
      runId,
      status: 'completed',
      steps: { gather: 'passed', draft: 'passed', summarize: 'unchecked', count: 'unchecked', finish: 'unchecked' },
      pending: [],
      result: { Summary: '3 notes', Page: page, Final: 'done: 3 notes' },
    });
    // Nothing was lost: the page saved before the kill is intact and counted once per step.
    const bytes = readFileSync(path.join(dataDir, page.path));
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(page.sha256);
    expect(bytes.toString()).toBe('# Page\n\nnote on Ada\nnote on Cy\nnote on Di\n');
    expect(readFileSync(path.join(dataDir, 'tally.json'), 'utf8')).toBe('3\n');
    const counts = new Map<string, number>();
    for (const line of invocations()) counts.set(line, (counts.get(line) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ 'gather#0': 1, 'gather#1': 1, 'gather#2': 1, draft: 1, summarize: 2, count: 2, finish: 1 });
  });
});
