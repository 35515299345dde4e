// For the CLI's `build`, which starts the check worker before it loads the compiler: this entry
// imports nothing but Node built-ins. Not a public API.
export { CheckWorker, EARLY_MIN_SOURCES, startCheckWorker, type WorkerListing } from './package/check-worker-start.js';
