import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests exercise the TypeScript sources, not a possibly stale dist/.
    alias: [
      { find: /^@berrypack\/compiler$/, replacement: here('./packages/compiler/src/index.ts') },
      { find: /^@berrypack\/compiler\/bundle$/, replacement: here('./packages/compiler/src/bundle/index.ts') },
      { find: /^@berrypack\/compiler\/jsonpath$/, replacement: here('./packages/compiler/src/reference/jsonpath.ts') },
      { find: /^@berrypack\/compiler\/authoring$/, replacement: here('./packages/compiler/src/authoring/index.ts') },
      { find: /^@berrypack\/compiler\/(internal-[a-z-]+)$/, replacement: here('./packages/compiler/src/') + '$1.ts' },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
