import type { CodeInfo } from './types.js';

/** BP21xx: names and references (REF, TOOL-6, NEXT-5) and bodies (TPL). */
export const referenceCodes = {
} as const satisfies Record<string, CodeInfo>;
