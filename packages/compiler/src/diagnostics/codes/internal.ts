import type { CodeInfo } from './types.js';

/** BP9xxx: reading inputs. */
export const internalCodes = {
  BP9001: { rule: 'SRC-10', severity: 'error', title: 'A file could not be read', needs: 'a file that disappears or cannot be opened while it is checked' },
} as const satisfies Record<string, CodeInfo>;
