export { berrypack, berrypack as default } from './plugin.js';
export type { FilterPattern, PluginOptions as Options } from '@berrypack/compiler';
