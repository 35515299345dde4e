import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { LineIndex } from '../diagnostics/line-index.js';
import type { CompilerHost } from '../host.js';
import type { BodySourceMap } from './body-map.js';
import type { CodeCache } from './code-cache.js';

export interface CodeRoutineInput {
  /** Absolute path of the routine's .md file. */
  file: string;
  /** Normalized text of the whole .md file. */
  text: string;
  lines: LineIndex;
  /** Where the body starts in `text` (UTF-16 offset). */
  bodyStart: number;
  /** POSIX path of the .md relative to the package root, used as the source-map `sources` entry. */
  sourcePath: string;
  /** Tool keys as declared in `tools` (literal names, e.g. 'notes.compose', 'helper'). */
  declaredTools: readonly string[];
  catalog: boolean;
}

export interface CodeContext {
  host: CompilerHost;
  /** Absolute and realpath'd. */
  packageRoot: string;
  /** Shared across routines and rebuilds; without one, each call analyses every module afresh. */
  cache?: CodeCache;
}

export interface CapturedModule {
  /** Absolute, as the importer named it (symbolic links inside the package are not resolved). */
  path: string;
  /** POSIX, relative to the package root. */
  relPath: string;
  /** Normalized (no BOM, LF only). */
  text: string;
  /** UTF-8 bytes of `text`. */
  size: number;
  /** Absolute paths of the resolved static imports and re-exports. */
  imports: string[];
}

export interface CodeRoutineResult {
  /** UTF-8 bytes of the body. */
  bodySize: number;
  /** Absolute paths the body imports directly. */
  imports: string[];
  /** Every supporting module reachable from the body, each once, sorted by relPath. */
  modules: CapturedModule[];
  /** Body → .md, from magic-string. */
  map: BodySourceMap;
  diagnostics: Diagnostic[];
  /** Every file read or probed (for watch mode), including missing import targets. */
  files: string[];
}
