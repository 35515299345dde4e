import { statSync, type Stats } from 'node:fs';
import { sha256Hex } from '../bundle/digest.js';
import { nodeHost, racy, type CompilerHost, type EntryKind } from '../host.js';

/**
 * One answer of the file system a build depended on, kept by digest so that it can be stored
 * and checked by a later process: a warm `berrypack build` of an unchanged package is then
 * served from the persistent cache without compiling (docs/performance.md).
 */
export type RecordedAnswer =
  | { op: 'read'; path: string; digest: string; stamp: string }
  | { op: 'stat'; path: string; answer: string }
  | { op: 'readdir'; path: string; answer: string }
  | { op: 'realpath'; path: string; answer: string };

/**
 * nodeHost, recording every answer (reads by digest and stamp). A read whose file changed
 * within a timestamp tick of it gets no stamp, so a check always hashes it again.
 */
export class AnswerRecorder implements CompilerHost {
  readonly answers: RecordedAnswer[] = [];
  readonly #seen = new Set<string>();

  readFile(path: string): Uint8Array {
    return this.readStamped(path).bytes;
  }

  readStamped(path: string): { bytes: Uint8Array; stamp: string; changedAt: number } {
    const started = Date.now();
    let read: { bytes: Uint8Array; stamp: string; changedAt: number };
    try {
      read = nodeHost.readStamped!(path);
    } catch (error) {
      this.#add({ op: 'read', path, digest: '!', stamp: '' });
      throw error;
    }
    const trusted = read.stamp !== '' && !racy(read.changedAt, started);
    this.#add({ op: 'read', path, digest: sha256Hex(read.bytes), stamp: trusted ? read.stamp : '' });
    return read;
  }

  stamp(path: string): string | undefined {
    return nodeHost.stamp!(path);
  }

  readdir(path: string): { name: string; kind: EntryKind }[] {
    try {
      const entries = nodeHost.readdir(path);
      this.#add({ op: 'readdir', path, answer: JSON.stringify(entries) });
      return entries;
    } catch (error) {
      this.#add({ op: 'readdir', path, answer: '!' });
      throw error;
    }
  }

  stat(path: string): { kind: 'file' | 'directory' | 'other'; size: number } | undefined {
    const s = nodeHost.stat(path);
    this.#add({ op: 'stat', path, answer: statAnswer(s) });
    return s;
  }

  realpath(path: string): string {
    try {
      const real = nodeHost.realpath(path);
      this.#add({ op: 'realpath', path, answer: real });
      return real;
    } catch (error) {
      this.#add({ op: 'realpath', path, answer: '!' });
      throw error;
    }
  }

  /** The first answer to each question is what the build saw first; later identical questions add nothing. */
  #add(answer: RecordedAnswer): void {
    const key = `${answer.op}\0${answer.path}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.answers.push(answer);
  }
}

/**
 * Whether the file system still gives every recorded answer: a read by its stamp when it has
 * one and the file's is unchanged, else by reading and hashing it. Stops at the first difference.
 */
export function sameAnswersOnDisk(answers: readonly RecordedAnswer[]): boolean {
  for (const a of answers) {
    if (a.op === 'read') {
      let s: Stats | undefined;
      try {
        s = statSync(a.path, { throwIfNoEntry: false });
      } catch {
        s = undefined;
      }
      if (a.digest === '!') {
        if (s?.isFile()) return false;
        continue;
      }
      if (!s?.isFile()) return false;
      if (a.stamp !== '' && nodeHost.stamp!(a.path) === a.stamp) continue;
      let digest: string;
      try {
        digest = sha256Hex(nodeHost.readFile(a.path));
      } catch {
        return false;
      }
      if (digest !== a.digest) return false;
    } else if (a.op === 'stat') {
      if (statAnswer(nodeHost.stat(a.path)) !== a.answer) return false;
    } else if (a.op === 'readdir') {
      let answer: string;
      try {
        answer = JSON.stringify(nodeHost.readdir(a.path));
      } catch {
        answer = '!';
      }
      if (answer !== a.answer) return false;
    } else {
      let answer: string;
      try {
        answer = nodeHost.realpath(a.path);
      } catch {
        answer = '!';
      }
      if (answer !== a.answer) return false;
    }
  }
  return true;
}

function statAnswer(s: { kind: string; size: number } | undefined): string {
  return s === undefined ? '' : `${s.kind}:${s.size}`;
}
