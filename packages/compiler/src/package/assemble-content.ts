import { digestOf } from '../bundle/digest.js';
import type { CapturedResource, ManifestInfo } from '../manifest/index.js';
import type { RoutineSource } from '../routine/check-routine.js';
import type { PackageResolution, ResolvedRoutine } from '../reference/resolve-package.js';
import type { Target } from '../reference/resolve-name.js';
import type { ResolvedNext } from '../reference/resolve-frontmatter.js';
import type { CompiledMethod } from '../method/index.js';
import { entry, toJson } from '../source/yaml-tree.js';
import { COPIED_FIELDS, copiedWire, fieldJson } from '../routine/routine-facts.js';
import { decodeSourceText } from '../source/normalize-text.js';
import type { CodeAnalysis } from './steps/analyze-code.js';
import { fragmentOf, type FragmentCache } from './cache/fragment-cache.js';
import { sameItems } from './cache/kept-order.js';
import { canonicalJson, canonicalValue, RawJson, trustedJson } from '../bundle/canonical-json.js';
import { NOT_SORTABLE, sortedJson } from '../json/sorted-json.js';
import { bodySlice, storedTemplate } from '../bundle/text-references.js';
import type { NextStep, PackageSummary } from './types.js';
import { relativePosix } from './steps/paths.js';
import type { CompiledImport } from './steps/resolve-imports.js';

export { FragmentCache } from './cache/fragment-cache.js';

export type { PackageSummary } from './types.js';

/** A method document found among the sources (MTH-16: its version id is its content digest). */
export interface CompiledMethodFile {
  path: string;
  method: CompiledMethod;
  /** Normalized text, captured in `files` like every source. */
  text: string;
}

export interface AssembleInput {
  manifest: ManifestInfo;
  methods: readonly CompiledMethodFile[];
  manifestBytes: Uint8Array;
  routines: readonly RoutineSource[];
  resolution: PackageResolution;
  code: CodeAnalysis;
  resources: readonly CapturedResource[];
  imports: { imports: readonly CompiledImport[] };
}

/**
 * The bundle's `content` in the format the compiler writes (`BUNDLE_FORMAT`, docs/bundle-format.md):
 * only POSIX relative paths, normalized text and digests, so the same package gives the same
 * bytes on any machine and directory. Each text is stored once: in `files`; templates and code
 * bodies refer to it.
 */
export function assembleContent(
  input: AssembleInput,
  cache: FragmentCache,
): { content: Record<string, unknown>; plain: Record<string, unknown>; summary: Omit<PackageSummary, 'id' | 'fileName'> } {
  const { manifest, resolution } = input;
  const rel = (file: string) => relativePosix(manifest.dir, file);
  const files: FileEntry[] = [];
  const file = (path: string, text: string, mediaType: string): FileEntry =>
    cache.memo('file', path, [text, mediaType], () => fileEntry(path, text, mediaType));
  const manifestText = decodeSourceText(input.manifestBytes);
  files.push(file('plugin.json', manifestText.ok ? manifestText.text : '', 'application/json'));

  const publicNames = new Set(resolution.exports.flatMap((e) => (e.target.kind === 'source' ? [e.target.name] : [])));
  const sources: Record<string, unknown> = {};
  const plainSources: Record<string, unknown> = {};
  const summaryRoutines: PackageSummary['routines'] = {};
  const sortedRoutines = cache.sorted(`routines\0${manifest.dir}`, input.routines, (r) => r.name!);
  // The last build's entries in the same order: an entry whose inputs are all the same objects
  // is taken from there, without a lookup by file.
  const last = cache.lastEntries(manifest.dir);
  const entries: RoutineEntry[] = [];
  const inputs: (readonly unknown[])[] = [];
  const add = (name: string, made: readonly unknown[], entry: RoutineEntry) => {
    inputs.push(made);
    entries.push(entry);
    files.push(entry.file);
    sources[name] = entry.raw;
    plainSources[name] = entry.record;
    summaryRoutines[name] = entry.summary;
  };
  for (let i = 0; i < sortedRoutines.length; i++) {
    const routine = sortedRoutines[i]!;
    const name = routine.name!;
    const resolved = resolution.routines.get(name);
    const exported = publicNames.has(name);
    const analysis = input.code.routines.get(name);
    const memoInputs = [routine, resolved, exported, analysis, manifest.dir];
    const before = last?.inputs[i];
    if (before !== undefined && sameItems(before, memoInputs)) {
      const entry = last!.entries[i] as RoutineEntry;
      cache.keep('source', routine.file, true);
      // Made inside the source entry's memo, which a reuse does not ask for again.
      cache.keep('file', entry.file.plain.path, false);
      add(name, before, entry);
      continue;
    }
    // Everything one routine contributes, rebuilt only when one of its inputs is a new object.
    const entry: RoutineEntry = cache.memo('source', routine.file, memoInputs, () => {
      const path = rel(routine.file);
      const record = routineEntry(routine, path, resolved, exported, analysis, rel);
      const summary: PackageSummary['routines'][string] = {
        kind: routine.kind,
        path,
        digest: digestOf(routine.text),
        visibility: record.visibility as string,
      };
      if (record.input !== undefined) summary.input = record.input;
      if (record.output !== undefined) summary.output = record.output;
      if (resolved?.next !== undefined) summary.next = nextSteps(resolved.next);
      // Encoded where it will most likely sit among the sorted sources, and only the bytes kept (see `RawJson.release`).
      const raw = new RawJson(routineText(routine, record));
      raw.entry(name, i > 0);
      return { record, raw: raw.release(), summary, file: file(path, routine.text, 'text/markdown') };
    });
    add(name, memoInputs, entry);
  }
  cache.keepEntries(manifest.dir, inputs, entries);
  const sortedModules = sortedBy([...input.code.modules.values()], (m) => m.relPath);
  for (const m of sortedModules) files.push(file(m.relPath, m.text, 'text/javascript'));
  const modules = cache.memo('modules', manifest.dir, [input.code.modules], () => {
    const plain: Record<string, unknown> = {};
    for (const m of sortedModules) plain[m.relPath] = { imports: m.imports.map(rel).sort() };
    return { plain, raw: fragmentOf(plain) };
  });
  for (const m of input.methods) files.push(file(m.path, m.text, m.path.endsWith('.json') ? 'application/json' : 'application/yaml'));
  const sortedFiles = cache.sorted(`files\0${manifest.dir}`, files, (f) => f.plain.path);

  const agents: Record<string, unknown> = {};
  const summaryAgents: PackageSummary['agents'] = {};
  for (const agent of manifest.agents) {
    const target = resolution.exports.find((e) => e.entry && e.name === agent.entry)?.target;
    const record: Record<string, unknown> = {
      title: agent.title,
      description: agent.description,
      entry: target?.kind === 'source' ? target.name : agent.entry,
    };
    for (const key of ['welcome', 'icons', 'presentation'] as const) if (agent[key] !== undefined) record[key] = agent[key];
    agents[agent.id] = record;
    summaryAgents[agent.id] = { title: agent.title, description: agent.description, entry: record.entry as string };
  }

  // Package-wide lists (the requirements hold every model routine's selection) serialized again
  // only when resolution gives new ones; a rebuild that changed none keeps their bytes.
  const fragment = (kind: string, value: unknown) => cache.fragment(kind, manifest.dir, value);
  const content: Record<string, unknown> = {
    agents,
    code: fragment('code', input.code.account),
    exports: fragment('exports', resolution.exports),
    files: sortedFiles.map((f) => f.raw),
    imports: input.imports.imports.map((i) => i.record),
    interfaces: manifest.interfaces,
    methods: Object.fromEntries(
      [...input.methods]
        .sort((a, b) => (a.method.name < b.method.name ? -1 : 1))
        .map((m) => [
          m.method.name,
          cache.memo('method', m.path, [m.text, m.method.versionId], () =>
            fragmentOf({ document: m.method.document, path: m.path, versionId: m.method.versionId }),
          ),
        ]),
    ),
    modules: modules.raw,
    plugin: { metadata: manifest.metadata, name: manifest.name, version: manifest.version },
    requirements: fragment('requirements', resolution.requirements),
    requires: manifest.requires.map((r) => r.name).sort(),
    resources: [...input.resources]
      .sort((a, b) => (a.uri < b.uri ? -1 : 1))
      .map((r) => ({ digest: r.digest, mediaType: r.mediaType, path: r.path, size: r.size, uri: r.uri })),
    sources,
  };
  if (manifest.runtime !== undefined) content.runtime = manifest.runtime;
  return {
    content,
    plain: {
      ...content,
      code: input.code.account,
      exports: resolution.exports,
      modules: modules.plain,
      files: sortedFiles.map((f) => f.plain),
      requirements: resolution.requirements,
      sources: plainSources,
    },
    summary: {
      name: manifest.name ?? '',
      agents: summaryAgents,
      exports: resolution.exports.map((e) => e.name),
      routines: summaryRoutines,
      requirements: resolution.requirements,
    },
  };
}

/** `items` ordered by `key` (distinct keys); the same array when it already is, as it mostly is on a rebuild. */
function sortedBy<T>(items: readonly T[], key: (item: T) => string): readonly T[] {
  for (let i = 1; i < items.length; i++) {
    if (key(items[i - 1]!) > key(items[i]!)) return [...items].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  }
  return items;
}

interface RoutineEntry {
  record: Record<string, unknown>;
  raw: RawJson;
  summary: PackageSummary['routines'][string];
  file: FileEntry;
}

interface FileEntry {
  plain: { mediaType: string; path: string; text: string };
  raw: RawJson;
}

/** A `files` entry: the text once, without its digest and size, which a loader computes. */
function fileEntry(path: string, text: string, mediaType: string): FileEntry {
  const plain = { mediaType, path, text };
  // Three strings under keys in canonical order: JSON.stringify writes them canonically, with
  // no walk of canonical JSON's checks (a lone surrogate still takes the exact path).
  // Encoded as a later item of `files` (all but the first are), and only the bytes kept: the
  // fragments hold every text of the package a second time (see `RawJson.release`).
  const raw = new RawJson(trustedJson(plain) ?? canonicalJson(plain));
  raw.prefixed(',');
  return { plain, raw: raw.release() };
}

function routineEntry(
  routine: RoutineSource,
  path: string,
  resolved: ResolvedRoutine | undefined,
  exported: boolean,
  analysis: CodeAnalysis['routines'] extends Map<string, infer R> ? R | undefined : never,
  rel: (file: string) => string,
): Record<string, unknown> {
  // Every field is found first and set in canonical (sorted) key order at the end, the order
  // `routineText` writes them in. Nothing reads the record's own key order; its values keep theirs.
  const field = (key: string) => fieldJson(routine, key);
  const visibility = entry(routine.frontmatter, 'visibility')?.value;
  let compaction = field('compaction');
  let configure: unknown;
  let next: unknown;
  let route: unknown;
  let template: unknown;
  if (resolved) {
    if (resolved.next !== undefined) next = nextRecord(resolved);
    if (resolved.configure !== undefined) {
      const fields = entryOf(routine, 'configure', 'fields');
      configure = { fields: fields ? toJson(fields) : [], routine: resolved.configure };
    }
    if (resolved.route !== undefined) route = { routine: resolved.route };
    if (resolved.summary !== undefined && compaction && typeof compaction === 'object') {
      compaction = { ...(compaction as Record<string, unknown>), summary: resolved.summary };
    }
    if (resolved.template !== undefined) template = storedTemplate(resolved.template, routine.text, routine.bodyStart);
  }
  const record: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) record[key] = value;
  };
  // Stored only when not empty: a loader reads a missing one as [] (content-view.ts, SOURCE_LISTS).
  const list = <T>(items: readonly T[] | undefined) => (items !== undefined && items.length > 0 ? items : undefined);
  set('catalog', field('catalog'));
  if (routine.kind === 'code' && analysis) {
    record.code = { body: bodySlice(routine.text, routine.body), imports: analysis.imports.map(rel).sort(), map: analysis.map };
  }
  set('compaction', compaction);
  set('configure', configure);
  set('dependencies', list(resolved?.dependencies));
  set('description', field('description'));
  set('env', list(resolved?.env));
  set('includes', list(resolved?.includes));
  set('input', field('input'));
  record.kind = routine.kind;
  set('model', field('model'));
  set('next', next);
  set('output', field('output'));
  record.path = path;
  set('permissions', field('permissions'));
  set('port', field('port'));
  set('readers', list(resolved?.readers));
  set('refs', list(resolved?.refs));
  set('route', route);
  set('template', template);
  set('title', field('title'));
  set('tools', resolved?.tools);
  record.visibility = visibility?.kind === 'scalar' && typeof visibility.value === 'string' ? visibility.value : exported ? 'public' : 'private';
  return record;
}

/**
 * `canonicalJson(record)` with one `JSON.stringify` per field: the record's keys are in canonical
 * order (`routineEntry`), each field copied from the frontmatter is its canonical text made when
 * the source was checked (`RoutineFacts`), or remade from its node with its keys sorted as it is
 * made (`sortedJson`), and only the fields the compiler made go through canonical JSON's checks
 * and sorted copies. So the schemas, the largest part of most entries, are neither walked by
 * those checks nor copied to sort their keys (in a fresh process, 1,000 entries: about a fifth
 * less CPU), and the record keeps YAML's key order for its readers (`summary`, types).
 * Anything unusual (a key out of order, a tree only the exact path writes, a lone surrogate, a
 * value canonical JSON refuses) takes `canonicalJson(record)`, with its bytes or its error.
 */
function routineText(routine: RoutineSource, record: Record<string, unknown>): string {
  const parts: string[] = [];
  let last = '';
  try {
    for (const key in record) {
      if (key <= last) return canonicalJson(record);
      last = key;
      const text = COPIED_FIELDS.has(key) ? copiedText(routine, key) : valueText(canonicalValue(record[key]));
      if (text === undefined) return canonicalJson(record);
      // What JSON.stringify writes for the whole object: each value's text is checked for lone surrogates on its own.
      parts.push((parts.length === 0 ? '{"' : '"') + key + '":' + text);
    }
  } catch {
    // Again whole, for the error's path from the record.
    return canonicalJson(record);
  }
  if (parts.length === 0) return '{}';
  // The braces inside the first and last parts: `join` then makes the one flat string the entry is encoded from.
  parts[parts.length - 1] += '}';
  return parts.join(',');
}

function copiedText(routine: RoutineSource, key: string): string | undefined {
  const made = copiedWire(routine, key);
  if (made !== undefined) return made.wire;
  const value = sortedJson(entry(routine.frontmatter, key)!.value);
  return value === NOT_SORTABLE ? undefined : trustedJson(value);
}

function valueText(value: unknown): string | undefined {
  return value === undefined ? undefined : trustedJson(value);
}

function nextRecord(resolved: ResolvedRoutine): Record<string, unknown> {
  const next: Record<string, unknown> = { ...(resolved.next as Record<string, unknown>) };
  if (resolved.nextInput !== undefined) next.input = resolved.nextInput;
  if (resolved.nextOutput !== undefined) next.output = resolved.nextOutput;
  return next;
}

function entryOf(routine: RoutineSource, field: string, key: string) {
  const v = entry(routine.frontmatter, field)?.value;
  return v?.kind === 'map' ? entry(v, key)?.value : undefined;
}

export type { Target };

function nextSteps(next: ResolvedNext): NextStep[] {
  const targets =
    'to' in next
      ? [next.to]
      : Object.keys(next.cases)
          .sort()
          .map((label) => next.cases[label]!);
  return targets.map((target) => (target === null ? null : target.kind === 'source' ? { source: target.name } : 'other'));
}
