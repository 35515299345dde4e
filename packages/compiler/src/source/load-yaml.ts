import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

// yaml is CommonJS of about 70 modules, a sixth of a small build's module loading. A frontmatter
// in plain block style never reaches it (fast-frontmatter.ts, core-scalars.ts), so it loads on
// first use, through `require` because the paths that use it are synchronous.
let loaded: typeof Yaml | undefined;

/** The yaml package, loaded the first time it is asked for. */
export function yaml(): typeof Yaml {
  return (loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}

export const isAlias = (node: unknown): node is Yaml.Alias => yaml().isAlias(node);
export const isMap = (node: unknown): node is Yaml.YAMLMap => yaml().isMap(node);
export const isPair = (node: unknown): node is Yaml.Pair => yaml().isPair(node);
export const isScalar = (node: unknown): node is Yaml.Scalar => yaml().isScalar(node);
export const isSeq = (node: unknown): node is Yaml.YAMLSeq => yaml().isSeq(node);
