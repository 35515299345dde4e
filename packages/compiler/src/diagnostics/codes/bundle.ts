import type { CodeInfo } from './types.js';

/** BP40xx: bundles (BND). */
export const bundleCodes = {
} as const satisfies Record<string, CodeInfo>;
