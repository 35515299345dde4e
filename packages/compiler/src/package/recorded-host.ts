import { racy, type CompilerHost, type EntryKind } from '../host.js';

/** One answer of the host, as a memoized computation saw it. */
type Recorded =
  | { op: 'read'; path: string; bytes: Uint8Array | undefined }
  | { op: 'stat'; path: string; answer: string }
  | { op: 'readdir'; path: string; answer: string; stamp: string }
  | { op: 'realpath'; path: string; answer: string };

/**
 * Records what a computation asked the host, so its result can be reused later exactly when
 * every answer is still the same. Reads compare by identity first (with the compiler's read
 * cache an unchanged file comes back as the same bytes object), then by content.
 */
export class RecordingHost implements CompilerHost {
  readonly log: Recorded[] = [];

  constructor(private readonly inner: CompilerHost) {}

  readFile(path: string): Uint8Array {
    try {
      const bytes = this.inner.readFile(path);
      this.log.push({ op: 'read', path, bytes });
      return bytes;
    } catch (error) {
      this.log.push({ op: 'read', path, bytes: undefined });
      throw error;
    }
  }

  readdir(path: string): { name: string; kind: EntryKind }[] {
    // The directory's stamp before the listing: a later check may trust it instead of listing again.
    const started = Date.now();
    const before = this.inner.dirStamp?.(path);
    const stamp = before !== undefined && !racy(before.changedAt, started) ? before.stamp : '';
    try {
      const entries = this.inner.readdir(path);
      this.log.push({ op: 'readdir', path, answer: JSON.stringify(entries), stamp });
      return entries;
    } catch (error) {
      this.log.push({ op: 'readdir', path, answer: '!', stamp: '' });
      throw error;
    }
  }

  dirStamp(path: string): { stamp: string; changedAt: number } | undefined {
    return this.inner.dirStamp?.(path);
  }

  stat(path: string): { kind: 'file' | 'directory' | 'other'; size: number } | undefined {
    const s = this.inner.stat(path);
    this.log.push({ op: 'stat', path, answer: s === undefined ? '' : `${s.kind}:${s.size}` });
    return s;
  }

  realpath(path: string): string {
    try {
      const real = this.inner.realpath(path);
      this.log.push({ op: 'realpath', path, answer: real });
      return real;
    } catch (error) {
      this.log.push({ op: 'realpath', path, answer: '!' });
      throw error;
    }
  }
}

/**
 * Asks `host` the recorded questions again (so a tracking host learns the same files) and
 * tells whether every answer is unchanged. Stops at the first difference.
 */
export function sameAnswers(log: readonly Recorded[], host: CompilerHost): boolean {
  for (const r of log) {
    if (r.op === 'read') {
      let bytes: Uint8Array | undefined;
      try {
        bytes = host.readFile(r.path);
      } catch {
        bytes = undefined;
      }
      if (bytes === r.bytes) continue;
      // Read again (a racy stamp, or a host without stamps) but maybe the same bytes.
      if (bytes === undefined || r.bytes === undefined || !Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).equals(r.bytes)) return false;
      r.bytes = bytes;
    } else if (r.op === 'stat') {
      const s = host.stat(r.path);
      if ((s === undefined ? '' : `${s.kind}:${s.size}`) !== r.answer) return false;
    } else if (r.op === 'readdir') {
      if (r.stamp !== '' && host.dirStamp?.(r.path)?.stamp === r.stamp) continue;
      let answer: string;
      try {
        answer = JSON.stringify(host.readdir(r.path));
      } catch {
        answer = '!';
      }
      if (answer !== r.answer) return false;
    } else {
      let answer: string;
      try {
        answer = host.realpath(r.path);
      } catch {
        answer = '!';
      }
      if (answer !== r.answer) return false;
    }
  }
  return true;
}
