import type { PluginOptions as Options } from '@berrypack/compiler';
import { berrypack } from './plugin.js';

/**
 * What `require('@berrypack/esbuild')` returns on Node 20.19+: the factory itself, also as
 * `.berrypack` and `.default`, so a CommonJS config works however it calls it (Rollup's
 * `--bundleConfigAsCjs` calls the required value directly).
 */
const required = Object.assign((options?: Options) => berrypack(options), { berrypack, default: berrypack });

export { berrypack, berrypack as default, required as 'module.exports' };
export type { FilterPattern, PluginOptions as Options } from '@berrypack/compiler';
