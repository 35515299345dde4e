import { readFileSync } from 'node:fs';
import { normalizeNewlines } from './normalize-text.js';

/**
 * A file's text as the compiler positions diagnostics in it (BOM dropped, CRLF and CR as LF;
 * CONTRACTS.md), for code frames and column conversion at the edges; undefined when it cannot
 * be read.
 */
export function readNormalized(file: string): string | undefined {
  try {
    return normalizeNewlines(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}
