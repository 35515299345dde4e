/// <reference types="@berrypack/webpack/client" />
// Compile-only: checked by ../types.test.ts with resolveJsonModule on, as in a webpack TypeScript setup.
import notebook from './my-plugin/plugin.json?berrypack';
import compose from './my-plugin/notes/compose.md?berrypack';

export const id: string = notebook.id;
export const file: string = notebook.file;
export const entry: string | undefined = notebook.agents['notebook']?.entry;
export const exported: readonly string[] = notebook.exports;
export const tools: readonly string[] = notebook.requirements.tools;

export const kind: 'model' | 'code' | 'instructions' = compose.kind;
export const bundleId: string = compose.bundle.id;
export const input: unknown = compose.input;

// @ts-expect-error the package module has no `kind`
export const wrong = notebook.kind;
// @ts-expect-error a routine's `name` is a string
export const count: number = compose.name;
// @ts-expect-error the descriptor is read-only
notebook.id = 'sha256-0';
