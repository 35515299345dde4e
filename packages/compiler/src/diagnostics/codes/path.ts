import type { CodeInfo } from './types.js';

/** BP15xx: singular JSONPath (PATH). */
export const pathCodes = {
  BP1501: { rule: 'PATH-1', severity: 'error', title: 'A path is not singular absolute RFC 9535 JSONPath' },
  BP1502: { rule: 'PATH-2', severity: 'error', title: 'A path starts at a root this place does not offer' },
} as const satisfies Record<string, CodeInfo>;
