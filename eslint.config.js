// The linter of `npm test` (npm run lint). typescript-eslint rather than Biome: its rules read the
// types from TypeScript itself (the pinned 5.9 compiler, through the project service), so a
// promise nobody awaits or a promise passed where a callback returns void is caught with the same
// type information `tsc --build` has; Biome infers types on its own and covers few such rules.
// The type-aware rules run on the packages' sources only, which keeps the run to about a minute
// on the 2-core CI machine; tests, scripts and benches get the rules that need no types.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'fixtures/**', 'packages/*/test/fixtures/**', 'packages/rollup/test/types/**', '**/*.d.ts', 'coverage/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        fetch: 'readonly',
        globalThis: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // A variable a callback reads before its one assignment (a server handler and the client it awaits) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Terminal escaping and its tests match control characters on purpose.
      'no-control-regex': 'off',
      // A walk up a parent chain starts from `this` (code/scope.ts).
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    files: ['**/*.cjs', 'editors/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', exports: 'writable', require: 'readonly', __dirname: 'readonly', __filename: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The guest runner reaches QuickJS as the source text of one function (sandbox/guest-runner.ts):
    // nothing a bundler could lower into a helper defined outside that function.
    files: ['packages/runtime/src/sandbox/guest-runner.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ObjectExpression > SpreadElement', message: 'Object spread may be lowered to a helper outside the guest runner.' },
        { selector: 'ClassDeclaration, ClassExpression', message: 'Classes may be lowered to helpers outside the guest runner.' },
        {
          selector: ':function[async=true], :function[generator=true]',
          message: 'Async and generator functions may be lowered to helpers outside the guest runner.',
        },
        { selector: 'ImportExpression, AwaitExpression', message: 'The guest runner runs in QuickJS with no module loader of its own.' },
      ],
    },
  },
  {
    files: ['packages/*/src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
    },
  },
);
