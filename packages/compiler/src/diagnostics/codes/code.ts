import type { CodeInfo } from './types.js';

const HEAD = '---\nname: notes.count\ndescription: Counts notes.\nlanguage: javascript\n---\n';

/** BP30xx: code routines and their module graph (CODE). */
export const codeCodes = {
  BP3001: {
    rule: 'CODE-1',
    severity: 'error',
    title: 'The body or a captured module is not a valid ECMAScript 2023 module',
    example: HEAD + 'export default function (input) {\n  return input +;\n}\n',
  },
  BP3010: {
    rule: 'CODE-2',
    severity: 'error',
    title: 'The body has no default export',
    example: HEAD + 'export function count(input) {\n  return input.length;\n}\n',
  },
  BP3011: {
    rule: 'CODE-2',
    severity: 'error',
    title: 'The default export is a class, not a function',
    example: HEAD + 'export default class Counter {\n  run(input) {\n    return input.length;\n  }\n}\n',
  },
  BP3012: {
    rule: 'CODE-2',
    severity: 'error',
    title: 'The default export is a generator function',
    example: HEAD + 'export default function* (input) {\n  yield input.length;\n}\n',
  },
  BP3013: { rule: 'CODE-2', severity: 'error', title: 'The default export is not a function', example: HEAD + 'export default { count: 1 };\n' },
  BP3014: {
    rule: 'CODE-2',
    severity: 'error',
    title: 'The default export comes from another module, so it cannot be checked to be a function',
    example: HEAD + "export { default } from './count.js';\n",
  },
  BP3020: {
    rule: 'CODE-3',
    severity: 'error',
    title: 'Top-level `await`',
    example: HEAD + 'const base = await Promise.resolve(1);\nexport default (input) => input.length + base;\n',
  },
  BP3021: {
    rule: 'CODE-3',
    severity: 'error',
    title: 'Dynamic `import()`',
    example: HEAD + "export default async (input) => {\n  const helper = await import('./helper.js');\n  return helper.count(input);\n};\n",
  },
  BP3022: { rule: 'CODE-3', severity: 'error', title: '`import.meta`', example: HEAD + 'export default () => import.meta.url;\n' },
  BP3030: {
    rule: 'CODE-4',
    severity: 'error',
    title: 'An import of an npm package or a Node built-in (a bare specifier)',
    example: HEAD + "import { readFileSync } from 'node:fs';\nexport default (input) => readFileSync(input.path, 'utf8').length;\n",
  },
  BP3031: {
    rule: 'CODE-4',
    severity: 'error',
    title: 'An import from a URL',
    example: HEAD + "import { count } from 'https://example.com/count.js';\nexport default (input) => count(input);\n",
  },
  BP3032: {
    rule: 'CODE-4',
    severity: 'error',
    title: 'An import by absolute path',
    example: HEAD + "import { count } from '/srv/lib/count.js';\nexport default (input) => count(input);\n",
  },
  BP3033: {
    rule: 'CODE-4',
    severity: 'error',
    title: 'An import that does not name a `.js` or `.mjs` file exactly',
    example: HEAD + "import { count } from './count.ts';\nexport default (input) => count(input);\n",
  },
  BP3034: {
    rule: 'CODE-4',
    severity: 'error',
    title: 'An import that leaves the package (by path or through a symbolic link)',
    example: HEAD + "import { count } from '../shared/count.js';\nexport default (input) => count(input);\n",
  },
  BP3035: {
    rule: 'CODE-4',
    severity: 'error',
    title: 'An imported file does not exist',
    needs: 'a relative import of a `.js` file that is missing from the package (or is a directory)',
  },
  BP3040: {
    rule: 'CODE-5',
    severity: 'error',
    title: 'A host global (Node, browser IO, timers…) that portable code cannot use',
    example: HEAD + 'export default async (input) => {\n  const response = await fetch(input.url);\n  return response.status;\n};\n',
  },
  BP3041: {
    rule: 'CODE-5',
    severity: 'warning',
    title: 'Reads the clock or randomness (fixed per invocation and recorded at run time)',
    example: HEAD + 'export default (input) => ({ count: input.length, at: Date.now() });\n',
  },
  BP3050: {
    rule: 'CODE-6',
    severity: 'error',
    title: 'Packaged code (bodies and captured modules) exceeds 1 MiB',
    needs: 'code routine bodies and captured modules totalling more than 1,048,576 bytes, reported by the package compiler',
  },
  BP3060: {
    rule: 'CODE-7',
    severity: 'warning',
    title: 'A `tools` key that is not a declared tool name',
    example:
      '---\nname: notes.publish\ndescription: Publishes a note.\nlanguage: javascript\ntools:\n  - notes.compose\n---\nexport default async function (input, tools) {\n  return await tools.notes.compose(input);\n}\n',
  },
} as const satisfies Record<string, CodeInfo>;
