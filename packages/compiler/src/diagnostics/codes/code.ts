import type { CodeInfo } from './types.js';

/** BP30xx: code routines and their module graph (CODE). */
export const codeCodes = {
} as const satisfies Record<string, CodeInfo>;
