// What the CLI needs beyond the public API. A seam for berrypack's own packages: it may change
// in any release.
export { escapeChar, escapeLine } from './diagnostics/code-frame.js';
export { TrackingHost } from './host.js';
export { ChangeWatcher } from './package/change-watcher.js';
export { firstDifference } from './package/first-difference.js';
export { AnswerRecorder, sameAnswersOnDisk, type RecordedAnswer } from './package/answer-recorder.js';
/** An upper bound of a YAML text's nesting depth, in one pass: refuse deep input before a recursive parser sees it. */
export { nestingBound } from './source/yaml-depth.js';
export { readNormalized } from './source/read-normalized.js';
export { closest } from './hints/did-you-mean.js';
export { findPackageManifest } from './package/importer-module.js';
export { normalizeNewlines } from './source/normalize-text.js';
