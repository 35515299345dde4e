import path from 'node:path';
import { createInterface } from 'node:readline';
import { readJournal, RuntimeError, type ExecutionEvent, type Outcome, type Runtime } from '@berrypack/runtime';
import type { CliIo } from '../io.js';
import { outputFormat, parse, stringOption } from '../options.js';
import { terminalSafe as safe } from '../terminal-safe.js';
import { UsageError } from '../usage-error.js';
import { RUN_OPTIONS, setUpRun, summarize, type RunReport } from './run.js';

export const CHAT_HELP = `Usage: berrypack chat BUNDLE_OR_MANIFEST --agent ID [--input JSON|@FILE] [--continue JOURNAL] [--json]
                      [every flag of berrypack run: --script, --journal, --grant, --env, --timeout,
                      --memory, --catalog, --store]

Holds a conversation with an agent whose entry has an input port: each line of stdin is one
message, sent when the agent waits for the next one. Text mode sends a line as
{"parts":[{"text": line}]}, prints answers as they stream, progress dimmed, and a prompt on a
terminal. --json reads each line as the JSON message and prints JSON lines: {"type":"delta",
"publication","text"}, {"type":"publication","id","value","kind","answers"}, {"type":"call",
"id","name","kind","status","usage"?} (usage of a model decision), and last
{"type":"end","status","output"|"error"}.
End of stdin closes the input port: the turn in progress finishes and the conversation ends
with its last answer. --continue JOURNAL continues the journal's stopped conversation: its
recorded calls are replayed, never dispatched again, and new lines continue it.
Exit 0 when the conversation completed, 1 when it failed, 2 on usage errors.
`;

const DIM = (io: CliIo) => (s: string) => (io.stdout.isTTY && !io.env['NO_COLOR'] ? `\x1b[2m${s}\x1b[22m` : s);

export async function chatCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, { ...RUN_OPTIONS, continue: { type: 'string' } });
  if (values.help) {
    io.stdout.write(CHAT_HELP);
    return 0;
  }
  const json = outputFormat(values) === 'json';
  const continued = stringOption(values, 'continue');
  const entries = continued === undefined ? undefined : readContinued(io.cwd, continued);
  const setup = await setUpRun(values, positionals, io, 'chat', () => ({ stream: true }));
  const out = new Printer(io, json);
  if ('failed' in setup) return out.failed(setup.failed);
  const { runtime, preparation, loaded, target, input } = setup;
  try {
    let executionId: string;
    try {
      executionId = entries
        ? (await runtime.continue(preparation, entries, { meta: { source: loaded.source } })).executionId
        : (await runtime.start(preparation, target, input, { meta: { source: loaded.source } })).executionId;
    } catch (error) {
      if (error instanceof RuntimeError) {
        if (entries)
          return out.failed({ executionId: null, status: 'failed', diagnostics: [], calls: [], error: { code: error.code, message: error.message } });
        throw new UsageError(error.message);
      }
      throw error;
    }
    const pacer = new Pacer();
    runtime.watch(executionId, (event) => {
      pacer.observe(event);
      out.event(event);
    });
    await converse(io, runtime, executionId, json, pacer, out);
    runtime.stop(executionId);
    const outcome = await runtime.result(executionId);
    return out.end(outcome);
  } finally {
    await runtime.close();
  }
}

function readContinued(cwd: string, file: string) {
  try {
    return readJournal(path.resolve(cwd, file));
  } catch (error) {
    if (error instanceof RuntimeError) throw new UsageError(`Unexpected --continue ${file}: ${error.message}`);
    throw new UsageError(`Unexpected --continue ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * Sends stdin's lines one at a time: the next line goes once the agent took the previous one
 * and waits again (a `receive` call pending), so each line is a turn of its own, as typed.
 */
async function converse(io: CliIo, runtime: Runtime, executionId: string, json: boolean, pacer: Pacer, out: Printer): Promise<void> {
  const stdin = io.stdin ?? process.stdin;
  const lines = createInterface({ input: stdin, crlfDelay: Infinity, terminal: false });
  const prompt = stdin.isTTY === true && io.stdout.isTTY === true && !json;
  let number = 0;
  // Iterating from now buffers the lines that arrive while the agent is still busy.
  const iterator = lines[Symbol.asyncIterator]();
  await pacer.ready();
  if (prompt) io.stdout.write('> ');
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    const line = next.value;
    number++;
    if (pacer.ended) break;
    let message: unknown;
    if (json) {
      try {
        message = JSON.parse(line) as unknown;
      } catch (error) {
        io.stderr.write(`berrypack chat: line ${number} is not JSON (${(error as Error).message}); not sent\n`);
        continue;
      }
    } else message = { parts: [{ text: line }] };
    try {
      pacer.sent();
      runtime.send(executionId, message);
    } catch (error) {
      if (!(error instanceof RuntimeError)) throw error;
      io.stderr.write(`berrypack chat: line ${number} refused: ${safe(error.code)}: ${safe(error.message)}\n`);
      continue;
    }
    await pacer.ready();
    out.turnDone();
    if (prompt && !pacer.ended) io.stdout.write('> ');
  }
  lines.close();
}

/** Knows from the execution's events whether the agent waits for input again, or ended. */
class Pacer {
  ended = false;
  private readonly pending = new Set<string>();
  private taken = 0;
  private awaited = 0;
  private wake: (() => void) | undefined;

  observe(event: ExecutionEvent): void {
    if (event.type === 'end') this.ended = true;
    if (event.type === 'call' && event.kind === 'receive') {
      if (event.status === 'pending') this.pending.add(event.id);
      else if (this.pending.delete(event.id)) this.taken++;
    }
    this.wake?.();
  }

  sent(): void {
    this.awaited = this.taken + 1;
  }

  /** Resolves once the last message sent was taken and a receive waits again, or the execution ended. */
  async ready(): Promise<void> {
    while (!this.ended && !(this.taken >= this.awaited && this.pending.size > 0)) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    this.wake = undefined;
  }
}

/** Text: answers as they stream, progress dimmed; JSON: one line per event (CONTRACTS). */
class Printer {
  private streaming: string | undefined;

  constructor(
    private readonly io: CliIo,
    private readonly json: boolean,
  ) {}

  event(event: ExecutionEvent): void {
    if (this.json) {
      if (event.type === 'end') return;
      this.io.stdout.write(`${JSON.stringify(lineOf(event))}\n`);
      return;
    }
    if (event.type === 'delta') {
      this.streaming = event.publication;
      this.io.stdout.write(safe(event.text, { multiline: true }));
    } else if (event.type === 'publication') {
      const { publication } = event;
      if (this.streaming === publication.id) {
        this.io.stdout.write('\n');
        this.streaming = undefined;
        return;
      }
      if (publication.kind === 'route') {
        const value = publication.value as { title?: unknown; thread?: unknown };
        this.io.stdout.write(`${DIM(this.io)(`→ routed to the thread ${safe(String(value.title ?? value.thread))}`)}\n`);
        return;
      }
      const text = safe(textOf(publication.value), { multiline: true });
      this.io.stdout.write(`${publication.kind === 'progress' ? DIM(this.io)(text) : text}\n`);
    }
  }

  turnDone(): void {
    if (this.streaming !== undefined && !this.json) this.io.stdout.write('\n');
    this.streaming = undefined;
  }

  end(outcome: Outcome): number {
    if (this.json) {
      const end =
        outcome.status === 'completed' ? { type: 'end', status: 'completed', output: outcome.output } : { type: 'end', status: 'failed', error: outcome.error };
      this.io.stdout.write(`${JSON.stringify(end)}\n`);
    } else {
      if (outcome.status === 'failed') this.io.stdout.write(`✖ ${safe(outcome.error.code)}: ${safe(outcome.error.message)}\n`);
      if (this.io.stderr.isTTY)
        this.io.stderr.write(`${safe(summarize({ status: outcome.status, executionId: outcome.executionId, calls: outcome.calls }))}\n`);
    }
    return outcome.status === 'completed' ? 0 : 1;
  }

  failed(report: RunReport): number {
    if (this.json)
      this.io.stdout.write(
        `${JSON.stringify({ type: 'end', status: 'failed', error: report.error, ...(report.diagnostics.length > 0 ? { diagnostics: report.diagnostics } : {}) })}\n`,
      );
    else this.io.stdout.write(`✖ ${safe(report.error!.code)}: ${safe(report.error!.message)}\n`);
    return 1;
  }
}

function lineOf(event: Exclude<ExecutionEvent, { type: 'end' }>): Record<string, unknown> {
  if (event.type === 'publication') {
    const { id, value, kind, answers } = event.publication;
    return { type: 'publication', id, value, ...(kind === undefined ? {} : { kind }), ...(answers === undefined ? {} : { answers }) };
  }
  return event;
}

/** What a person reads of a published value: its text parts, data as JSON. */
function textOf(value: unknown): string {
  const parts =
    typeof value === 'object' && value !== null && Array.isArray((value as { parts?: unknown }).parts)
      ? (value as { parts: Record<string, unknown>[] }).parts
      : undefined;
  if (!parts) return typeof value === 'string' ? value : JSON.stringify(value);
  return parts.map((p) => (typeof p['text'] === 'string' ? p['text'] : JSON.stringify(p['data'] ?? p))).join('\n');
}
