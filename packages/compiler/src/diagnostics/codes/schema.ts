import type { CodeInfo } from './types.js';

/** BP12xx: input and output schemas (SCH). */
export const schemaCodes = {
} as const satisfies Record<string, CodeInfo>;
