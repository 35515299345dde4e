import { RuntimeError } from '../errors.js';
import type { ExecutionEntry, JournalEntry } from '../journal/entries.js';

/**
 * The recorded execution that a replay or a continuation works on: the one named, else the
 * last in the journal, recorded with this bundle. `rule` names the rule of the caller (RUN-5
 * for replay, RUN-14 for continuation) in the errors.
 */
export function recordedExecution(
  entries: readonly JournalEntry[],
  executionId: string | undefined,
  bundleId: string,
  rule: string,
): { header: ExecutionEntry; recorded: JournalEntry[] } {
  const headers = entries.filter((e): e is ExecutionEntry => e.type === 'execution');
  const header = executionId === undefined ? headers[headers.length - 1] : headers.find((h) => h.executionId === executionId);
  if (!header)
    throw new RuntimeError(
      'invalid-journal',
      executionId === undefined
        ? 'Missing an execution entry in the journal, expected one written by the runtime'
        : `Missing execution ${executionId} in the journal`,
      rule,
    );
  if (header.bundle !== bundleId) {
    throw new RuntimeError('bundle-mismatch', `Unexpected bundle ${bundleId}, expected ${header.bundle} (the one the journal recorded)`, rule);
  }
  return { header, recorded: entries.filter((e) => e.executionId === header.executionId) };
}
