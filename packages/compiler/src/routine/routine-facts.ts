import type { Span } from '../diagnostics/reporter.js';
import { entry, toJson, type YEntry, type YMap } from '../source/yaml-tree.js';

/*
 * What the package-wide steps (resolution, the code step, assembly) read of a routine's
 * frontmatter beyond the entries resolution reports on. A build keeps every routine it checked
 * until assembly, and the located trees of the fields a bundle entry only copies (the schemas,
 * the model settings, the texts) were most of each tree it kept (docs/performance.md, round
 * eight, wt-tree): made into `RoutineFacts` right after the source's own check, those trees die
 * young. A routine without facts (`checkSource`'s own result: the language server, `check`) is
 * read from its tree by the same accessors.
 */

/** The fields a routine's bundle entry copies from the frontmatter as they are (`compaction` gains a `summary`, so it is not one). */
export const COPIED_FIELDS: ReadonlySet<string> = new Set(['catalog', 'description', 'input', 'model', 'output', 'permissions', 'port', 'title']);

/** One copied field of a routine whose tree was let go. */
export interface CopiedField {
  key: string;
  keyStart: number;
  keyEnd: number;
  /** `toJson` of the value, in YAML's key order: the entry's record and the package summary. */
  plain: unknown;
  /** The value's canonical JSON text; undefined when only `canonicalJson` of the whole entry may write it. */
  wire: string | undefined;
}

export interface RoutineFacts {
  /** In the frontmatter's order. */
  copied: readonly CopiedField[];
  /** `modelSelection` of the routine (MAN-7's `models`), undefined when it has none. */
  selection: unknown;
  /** `sessionCalls` of the routine (MDL-7/8). */
  calls: readonly string[];
  /** `model.select.operation` is `classification` (MISC-1). */
  classification: boolean;
}

/** A frontmatter without the copied fields' entries, and the facts the later steps read instead. */
export interface FactsOwner {
  frontmatter: YMap;
  /** Present when the copied fields' entries were taken out of `frontmatter` (an `input` or `output` stays where its JSON would not read the same: compact-routine.ts). */
  facts?: RoutineFacts;
}

function copied(routine: FactsOwner, key: string): CopiedField | undefined {
  const fields = routine.facts?.copied;
  if (fields !== undefined) for (const f of fields) if (f.key === key) return f;
  return undefined;
}

function written(routine: FactsOwner, key: string): YEntry | undefined {
  return routine.facts !== undefined && COPIED_FIELDS.has(key) ? undefined : entry(routine.frontmatter, key);
}

/** The JSON value of a top-level field (`toJson`), undefined when it is not written. */
export function fieldJson(routine: FactsOwner, key: string): unknown {
  const f = copied(routine, key);
  if (f !== undefined) return f.plain;
  const e = written(routine, key);
  return e === undefined ? undefined : toJson(e.value);
}

/** Where a top-level field's key is, undefined when it is not written. */
export function fieldKeySpan(routine: FactsOwner, key: string): Span | undefined {
  const f = copied(routine, key);
  if (f !== undefined) return { start: f.keyStart, end: f.keyEnd };
  return written(routine, key)?.keySpan;
}

/** The copied field's canonical JSON text when the routine has facts (`undefined`: only the exact path writes it). */
export function copiedWire(routine: FactsOwner, key: string): { wire: string | undefined } | undefined {
  const f = copied(routine, key);
  return f === undefined ? undefined : { wire: f.wire };
}
