export { berrypack as default } from './plugin.js';
export type { FilterPattern, Options } from './options.js';
export type { BerryLog } from './to-rollup-log.js';
