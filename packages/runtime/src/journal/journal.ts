import { appendFileSync, readFileSync } from 'node:fs';
import { RuntimeError } from '../errors.js';
import type { JournalEntry } from './entries.js';

/**
 * Where an execution's entries go, in order, append-only. `append` is called synchronously
 * in the order things happen; a durable engine can sit behind this interface.
 */
export interface Journal {
  append(entry: JournalEntry): void;
}

export interface MemoryJournal extends Journal {
  readonly entries: readonly JournalEntry[];
}

export function createMemoryJournal(): MemoryJournal {
  const entries: JournalEntry[] = [];
  return {
    entries,
    append(entry) {
      entries.push(entry);
    },
  };
}

/**
 * A JSONL journal: one entry per line, appended as it happens (docs/runtime.md, "Journal
 * file"). Lines are not fsync'ed one by one; a crash can tear the last line, which
 * `readJournal` tolerates.
 */
export function createFileJournal(file: string): Journal {
  return {
    append(entry) {
      appendFileSync(file, `${JSON.stringify(entry)}\n`);
    },
  };
}

/**
 * Reads a JSONL journal. A last line that is incomplete (no newline, or not JSON) is a torn
 * write and is dropped; a bad line anywhere else is corruption and refused.
 */
export function parseJournal(text: string): JournalEntry[] {
  const lines = text.split('\n');
  const entries: JournalEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const last = i >= lines.length - 2 && lines.slice(i + 1).every((l) => l.trim() === '');
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      if (last) break;
      throw new RuntimeError('invalid-journal', `Unexpected line ${i + 1} that is not JSON, expected one journal entry per line`, 'RUN-5');
    }
    const torn = last && !text.endsWith('\n');
    if (typeof entry !== 'object' || entry === null || typeof (entry as { type?: unknown }).type !== 'string') {
      if (torn) break;
      throw new RuntimeError('invalid-journal', `Unexpected line ${i + 1} without an entry \`type\`, expected a journal entry`, 'RUN-5');
    }
    entries.push(entry as JournalEntry);
  }
  return entries;
}

export function readJournal(file: string): JournalEntry[] {
  return parseJournal(readFileSync(file, 'utf8'));
}
