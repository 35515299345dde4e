import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMethod } from '../packages/compiler/src/index.js';
import {
  createOpenAICompatibleProvider,
  createProviderExecutor,
  createProviderJudge,
  readMethodRun,
  runMethod,
  type ExternalTool,
  type ToolConnection,
} from '../packages/runtime/src/index.js';
import { ROOT } from './support/cli.js';
import { startTriageModel } from './support/triage-model.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-method-agents-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const FIXTURE = path.join(ROOT, 'fixtures/methods/ticket-triage.method.yaml');

interface Ticket {
  id: string;
  title: string;
  body: string;
  created: string;
  labels: string[];
  comments: string[];
}

/** The support tracker the `tracker` connection reaches: search reads, label and comment write. */
function tracker() {
  const tickets: Ticket[] = [
    { id: 'T-3', title: 'Export to CSV', body: 'How do I export my invoices to CSV?', created: '2025-02-01', labels: [], comments: [] },
    { id: 'T-1', title: 'App crashes on login', body: 'The app crashes every time I log in on Android.', created: '2025-03-01', labels: [], comments: [] },
    { id: 'T-2', title: 'Charged twice', body: 'I was charged twice for March.', created: '2025-03-02', labels: [], comments: [] },
    { id: 'T-4', title: 'Password reset', body: 'The reset mail never arrives.', created: '2025-03-03', labels: [], comments: [] },
  ];
  const find = (id: string): Ticket => {
    const ticket = tickets.find((t) => t.id === id);
    if (!ticket) throw new Error(`no ticket ${id}`);
    return ticket;
  };
  const object = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });
  const tools: Record<string, ExternalTool> = {
    'tracker.search': {
      description: 'Open tickets created on or after a date, oldest first.',
      input: object({ since: { type: 'string' } }),
      invoke: (input) =>
        tickets
          .filter((t) => t.created >= (input as { since: string }).since)
          .sort((a, b) => a.created.localeCompare(b.created))
          .map(({ id, title, body }) => ({ id, title, body })),
    },
    'tracker.label': {
      description: 'Sets the one label of a ticket.',
      input: object({ id: { type: 'string' }, label: { type: 'string' } }),
      invoke: (input) => {
        const { id, label } = input as { id: string; label: string };
        find(id).labels = [label];
        return { id, labels: [label] };
      },
    },
    'tracker.comment': {
      description: 'Posts a comment on a ticket.',
      input: object({ id: { type: 'string' }, text: { type: 'string' } }),
      invoke: (input) => {
        const { id, text } = input as { id: string; text: string };
        const ticket = find(id);
        ticket.comments.push(text);
        return { url: `https://tracker.example/${id}#comment-${ticket.comments.length}` };
      },
    },
  };
  const connection: ToolConnection = { tools, writes: ['tracker.label', 'tracker.comment'] };
  return { tickets, connection };
}

describe('a realistic method whose do steps are agents calling connection tools (fixtures/methods/ticket-triage.method.yaml)', () => {
  let model: Awaited<ReturnType<typeof startTriageModel>>;
  beforeAll(async () => {
    model = await startTriageModel();
  });
  afterAll(() => model.close());

  it("MTH-18: finds, labels and answers the new tickets through the tracker's tools, checks them on observed evidence, and remembers them", async () => {
    const checked = checkMethod(FIXTURE, readFileSync(FIXTURE));
    expect(checked.diagnostics).toEqual([]);
    const dataDir = path.join(tmp, 'triage');
    mkdirSync(path.join(dataDir, 'triage'), { recursive: true });
    writeFileSync(path.join(dataDir, 'triage/triaged.json'), '["T-4"]');
    const t = tracker();
    const agent = { provider: createOpenAICompatibleProvider(), binding: { provider: 'openai-compatible', baseUrl: model.baseUrl, model: 'triage-model' } };
    const run = await runMethod(checked.method!, {
      dataDir,
      inputs: { since: '2025-03-01' },
      environment: { tracker: t.connection },
      executor: createProviderExecutor(agent),
      judge: createProviderJudge(agent),
    });
    expect(run).toEqual({
      runId: run.runId,
      status: 'completed',
      steps: { find: 'passed', reply: 'passed', remember: 'passed' },
      pending: [],
      result: {
        Triaged: [
          { ticket: 'T-1', label: 'bug', comment_url: 'https://tracker.example/T-1#comment-1' },
          { ticket: 'T-2', label: 'billing', comment_url: 'https://tracker.example/T-2#comment-1' },
        ],
        'Known tickets': ['T-4', 'T-1', 'T-2'],
      },
    });
    expect(t.tickets.map((x) => `${x.id} ${x.labels.join(',')} ${x.comments.length}`)).toEqual(['T-3  0', 'T-1 bug 1', 'T-2 billing 1', 'T-4  0']);
    expect(readFileSync(path.join(dataDir, 'triage/triaged.json'), 'utf8')).toBe('["T-4","T-1","T-2"]\n');
    // `find` only reads the tracker: it was never offered the writing tools.
    expect(model.requests[0]).toEqual({ tools: ['tracker_search'] });
    expect(model.requests.some((r) => r.tools.includes('tracker_comment'))).toBe(true);
    const reply = readMethodRun(run.runId, { dataDir }).record.steps['reply']!;
    expect(reply.items?.map((i) => i.changes?.['environment.tracker']?.writes?.map((w) => w.tool))).toEqual([
      ['tracker.label', 'tracker.comment'],
      ['tracker.label', 'tracker.comment'],
    ]);
    expect(reply.items?.[0]?.check).toMatchObject({ kind: 'english', status: 'passed', reason: 'The label and the comment were written through the tracker.' });
  });
});
