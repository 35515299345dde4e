import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');
let loaded: Yaml | undefined;

/**
 * The yaml package, loaded on first use. A frontmatter the fast path reads whole never needs
 * it, and loading it was about a tenth of a cold build of 1,000 sources. Synchronous (yaml is
 * CommonJS for Node), so the parse stays synchronous.
 */
export function yamlModule(): Yaml {
  return (loaded ??= createRequire(import.meta.url)('yaml') as Yaml);
}
