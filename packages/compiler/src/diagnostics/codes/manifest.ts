import type { CodeInfo } from './types.js';

/** BP20xx: plugin.json and packages (MAN). */
export const manifestCodes = {
} as const satisfies Record<string, CodeInfo>;
