// Module types for imports that the berrypack bundler plugins compile (@berrypack/rollup for Rollup
// and Vite, @berrypack/webpack for webpack 5 and Rspack, @berrypack/esbuild). Reference this file with
// `/// <reference types="@berrypack/compiler/client" />` or `"types": ["@berrypack/compiler/client"]`;
// `@berrypack/rollup/client` and `@berrypack/webpack/client` point here.
//
// Only the `?berrypack` forms are declared. TypeScript types a plain
// `import app from './my-plugin/plugin.json'` from the JSON file itself whenever
// `resolveJsonModule` is on (the default with `moduleResolution` `bundler` or `nodenext`) and then
// never consults `declare module '*/plugin.json'`; a `?berrypack` specifier is never a file, so
// it always gets these declarations. A plain `*.md` declaration would clash with Markdown plugins.

declare module '*/plugin.json?berrypack' {
  /** A Berry package, compiled into a bundle by the build. */
  interface BerryPackage {
    /** `sha256-<hex>` of the bundle's content; pass it as `expectedId` when loading the bundle. */
    readonly id: string;
    /** The plugin's name from plugin.json. */
    readonly name: string;
    /** `<plugin-name>.<first 12 hex of id>.berry.json`, the same from every entry point. */
    readonly fileName: string;
    /**
     * The bundle's URL (resource blobs are beside it, under `blobs/sha256/`); only `fileName` with
     * `emit: false`. In webpack and Rspack: `__webpack_public_path__` + `fileName`, under `output.publicPath`.
     */
    readonly file: string;
    /** The package's agents by id. */
    readonly agents: Readonly<Record<string, { readonly title: string; readonly description: string; readonly entry: string }>>;
    /** The names the package exports. */
    readonly exports: readonly string[];
    /** What running the package needs from its host. */
    readonly requirements: {
      readonly tools: readonly string[];
      readonly readers: readonly string[];
      readonly models: readonly unknown[];
      readonly env: readonly string[];
      readonly ui: boolean;
      readonly calls: readonly string[];
    };
  }
  const berryPackage: BerryPackage;
  export default berryPackage;
}

declare module '*.md?berrypack' {
  /** One routine of a Berry package, with the bundle that holds it. */
  interface BerryRoutine {
    /** The routine's name in its package, e.g. `notes.compose`. */
    readonly name: string;
    readonly kind: 'model' | 'code' | 'instructions';
    /** `sha256-<hex>` of the routine's normalized text. */
    readonly digest: string;
    readonly visibility: 'public' | 'private';
    /** The routine's input JSON Schema, or null. */
    readonly input: unknown;
    /** The routine's output JSON Schema, or null. */
    readonly output: unknown;
    /** The package's bundle: see the `plugin.json?berrypack` module. */
    readonly bundle: { readonly id: string; readonly name: string; readonly fileName: string; readonly file: string };
  }
  const berryRoutine: BerryRoutine;
  export default berryRoutine;
}
