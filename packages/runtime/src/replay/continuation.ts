import { RuntimeError } from '../errors.js';
import type { ExecutionEntry, JournalEntry } from '../journal/entries.js';
import { recordedExecution } from './recorded-execution.js';
import { Replayer } from './replayer.js';

export interface ContinueOptions {
  /** Which recorded execution to continue when the entries hold several; default: the last one. */
  executionId?: string;
  /** Host data recorded in the new execution entry. */
  meta?: Record<string, unknown>;
}

/**
 * What a continuation replays (spec "Ports and lifecycle": code with an input port can
 * continue after an explicit stop and fresh input): the recorded execution up to the
 * `receive` that the stop answered with null. Everything before it is served from the
 * recording (never dispatched again); from that `receive` on, calls run live. A recorded call
 * without its outcome refuses the continuation (`replay-missing-outcome`) when it is reached.
 */
export function continuationOf(
  entries: readonly JournalEntry[],
  options: ContinueOptions,
  bundleId: string,
): { header: ExecutionEntry; replayer: Replayer; messages: number } {
  const { header, recorded } = recordedExecution(entries, options.executionId, bundleId, 'RUN-14');
  const stopped = new Set(recorded.flatMap((e) => (e.type === 'outcome' && e.status === 'completed' && e.output === null ? [e.id] : [])));
  const cutAt = recorded.findIndex((e) => e.type === 'call' && e.kind === 'receive' && stopped.has(e.id));
  if (cutAt === -1) {
    throw new RuntimeError(
      'not-continuable',
      `Unexpected continuation of ${header.executionId}, which was not stopped while waiting for input, expected an execution whose input port was stopped (runtime.stop) as it waited`,
      'RUN-14',
    );
  }
  const kept = recorded.slice(0, cutAt);
  const replayer = new Replayer(kept);
  replayer.continuing = true;
  return { header, replayer, messages: recorded.filter((e) => e.type === 'message').length };
}
