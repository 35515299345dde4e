import { sha256Hex } from '../bundle/digest.js';
import { nodeHost, racy, type CompilerHost, type EntryKind } from '../host.js';
import { sameBytes } from '../text/same-bytes.js';

/**
 * One answer of the host, kept so that it can be stored and checked by a later process (a
 * read by its digest): a warm `berrypack build` of an unchanged package is then served from
 * the persistent cache without compiling (docs/performance.md).
 */
export type RecordedAnswer =
  | { op: 'read'; path: string; digest: string; stamp: string }
  | { op: 'stat'; path: string; answer: string }
  | { op: 'readdir'; path: string; answer: string; stamp?: string }
  | { op: 'realpath'; path: string; answer: string };

/** An answer as the recording process saw it: a read keeps its bytes (undefined: it failed). */
export type Answer = Exclude<RecordedAnswer, { op: 'read' }> | { op: 'read'; path: string; bytes: Uint8Array | undefined; stamp: string };

type StampedRead = { bytes: Uint8Array; stamp: string; changedAt: number };

/**
 * A host that records every answer of the host it wraps (nodeHost by default), so that what
 * a computation produced can be reused exactly while every answer is still the same: in
 * memory by the compiler's caches (`sameAnswers`), on disk by the CLI's build cache
 * (`stored()`, `sameAnswersOnDisk`). A read or listing whose file changed within a timestamp
 * tick of it gets no stamp, so a check always reads it again.
 */
export class AnswerRecorder implements CompilerHost {
  readonly log: Answer[] = [];
  /** The last answer to each question, so asking again with the same answer adds nothing. */
  readonly #last = new Map<string, Answer>();
  readonly readStamped?: (path: string) => StampedRead;
  readonly stamp?: (path: string) => string | undefined;

  constructor(private readonly inner: CompilerHost = nodeHost) {
    // Offered only when the inner host has them: a host without stamps is read in full.
    if (inner.readStamped !== undefined && inner.stamp !== undefined) {
      const readStamped = inner.readStamped.bind(inner);
      this.readStamped = (path) => this.#read(path, () => readStamped(path));
      this.stamp = inner.stamp.bind(inner);
    }
  }

  readFile(path: string): Uint8Array {
    return this.readStamped
      ? this.readStamped(path).bytes
      : this.#read(path, () => ({ bytes: this.inner.readFile(path), stamp: '', changedAt: Infinity })).bytes;
  }

  #read(path: string, read: () => StampedRead): StampedRead {
    const started = Date.now();
    let result: StampedRead;
    try {
      result = read();
    } catch (error) {
      this.#add({ op: 'read', path, bytes: undefined, stamp: '' });
      throw error;
    }
    const trusted = result.stamp !== '' && !racy(result.changedAt, started);
    this.#add({ op: 'read', path, bytes: result.bytes, stamp: trusted ? result.stamp : '' });
    return result;
  }

  readdir(path: string): { name: string; kind: EntryKind }[] {
    // The directory's stamp before the listing: a later check may trust it instead of listing again.
    const started = Date.now();
    const before = this.inner.dirStamp?.(path);
    const stamp = before !== undefined && !racy(before.changedAt, started) ? before.stamp : '';
    try {
      const entries = this.inner.readdir(path);
      this.#add({ op: 'readdir', path, answer: JSON.stringify(entries), stamp });
      return entries;
    } catch (error) {
      this.#add({ op: 'readdir', path, answer: '!', stamp: '' });
      throw error;
    }
  }

  dirStamp(path: string): { stamp: string; changedAt: number } | undefined {
    return this.inner.dirStamp?.(path);
  }

  stat(path: string): { kind: 'file' | 'directory' | 'other'; size: number } | undefined {
    const s = this.inner.stat(path);
    this.#add({ op: 'stat', path, answer: statAnswer(s) });
    return s;
  }

  realpath(path: string): string {
    try {
      const real = this.inner.realpath(path);
      this.#add({ op: 'realpath', path, answer: real });
      return real;
    } catch (error) {
      this.#add({ op: 'realpath', path, answer: '!' });
      throw error;
    }
  }

  /** The log with reads by digest, for a later process. */
  stored(): RecordedAnswer[] {
    return this.log.map((a) => (a.op === 'read' ? { op: 'read', path: a.path, digest: a.bytes === undefined ? '!' : sha256Hex(a.bytes), stamp: a.stamp } : a));
  }

  #add(answer: Answer): void {
    const key = `${answer.op}\0${answer.path}`;
    const last = this.#last.get(key);
    // A different answer to the same question (the file changed meanwhile) is kept too: then
    // no later state can match both, and the result is never reused.
    if (last !== undefined && sameAnswer(last, answer)) return;
    this.#last.set(key, answer);
    this.log.push(answer);
  }
}

function sameAnswer(a: Answer, b: Answer): boolean {
  if (a.op === 'read' && b.op === 'read') return a.bytes === b.bytes || (a.bytes !== undefined && b.bytes !== undefined && sameBytes(a.bytes, b.bytes));
  return a.op !== 'read' && b.op !== 'read' && a.answer === b.answer;
}

/**
 * Asks `host` the recorded questions again (so a tracking host learns the same files) and
 * tells whether every answer is unchanged. Stops at the first difference. A read compares by
 * its stamp when it has one and the host's is unchanged, else by identity (with the compiler's
 * read cache an unchanged file comes back as the same bytes object), then by content or digest.
 */
export function sameAnswers(log: readonly (Answer | RecordedAnswer)[], host: CompilerHost): boolean {
  for (const r of log) {
    if (r.op === 'read') {
      if (r.stamp !== '' && host.stamp?.(r.path) === r.stamp) continue;
      if ('digest' in r) {
        // Only a regular file is read: a path that became a FIFO must not block the check.
        const isFile = host.stat(r.path)?.kind === 'file';
        if (r.digest === '!' ? isFile : !isFile || digestOrFailure(host, r.path) !== r.digest) return false;
        continue;
      }
      let bytes: Uint8Array | undefined;
      try {
        bytes = host.readFile(r.path);
      } catch {
        bytes = undefined;
      }
      if (bytes === r.bytes) continue;
      // Read again (a racy stamp, or a host without stamps) but maybe the same bytes.
      if (bytes === undefined || r.bytes === undefined || !sameBytes(bytes, r.bytes)) return false;
      r.bytes = bytes;
    } else if (r.op === 'stat') {
      if (statAnswer(host.stat(r.path)) !== r.answer) return false;
    } else if (r.op === 'readdir') {
      if (r.stamp !== undefined && r.stamp !== '' && host.dirStamp?.(r.path)?.stamp === r.stamp) continue;
      if (answerOrFailure(() => JSON.stringify(host.readdir(r.path))) !== r.answer) return false;
    } else if (answerOrFailure(() => host.realpath(r.path)) !== r.answer) return false;
  }
  return true;
}

/** Whether the file system still gives every answer a build recorded (see `AnswerRecorder.stored`). */
export function sameAnswersOnDisk(answers: readonly RecordedAnswer[]): boolean {
  return sameAnswers(answers, nodeHost);
}

function digestOrFailure(host: CompilerHost, path: string): string {
  return answerOrFailure(() => sha256Hex(host.readFile(path)));
}

/** The answer, or `!` when asking failed. */
function answerOrFailure(ask: () => string): string {
  try {
    return ask();
  } catch {
    return '!';
  }
}

function statAnswer(s: { kind: string; size: number } | undefined): string {
  return s === undefined ? '' : `${s.kind}:${s.size}`;
}
