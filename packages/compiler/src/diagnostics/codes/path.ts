import type { CodeInfo } from './types.js';

/** BP15xx: singular JSONPath (PATH). */
export const pathCodes = {
  BP1501: {
    rule: 'PATH-1',
    severity: 'error',
    title: 'A path is not singular absolute RFC 9535 JSONPath',
    example:
      '---\nname: notes.answer\ndescription: Answers a question.\nmodel:\n  select:\n    operation: generation\nnext:\n  select: $.output.labels[*]\n  cases:\n    done: null\n---\nAnswer the question.\n',
  },
  BP1502: {
    rule: 'PATH-2',
    severity: 'error',
    title: 'A path starts at a root this place does not offer',
    example:
      '---\nname: notes.answer\ndescription: Answers a question.\nmodel:\n  select:\n    operation: generation\nnext:\n  select: $.result.kind\n  cases:\n    done: null\n---\nAnswer the question.\n',
  },
} as const satisfies Record<string, CodeInfo>;
