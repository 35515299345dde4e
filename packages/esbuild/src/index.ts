export { berrypack as default } from './plugin.js';
export type { FilterPattern, Options } from './options.js';
