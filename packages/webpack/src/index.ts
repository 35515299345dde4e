import { berrypack } from './plugin.js';

// `require('@berrypack/webpack')` (require of ESM, Node >= 20.19) gives the factory itself.
export { berrypack as default, berrypack as 'module.exports' };
export type { FilterPattern, PluginOptions as Options } from '@berrypack/compiler';
export type { WebpackPlugin } from './plugin.js';
export type { BerryWebpackError } from './to-webpack-error.js';
export type { HostCompiler, HostCompilation, HostLoaderContext, HostModule } from './host.js';
