import type { CodeInfo } from './types.js';

/** BP9xxx: reading inputs. */
export const internalCodes = {
  BP9001: { rule: 'SRC-10', severity: 'error', title: 'A file could not be read' },
} as const satisfies Record<string, CodeInfo>;
