import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import {
  checkMethod,
  checkSource,
  createCompiler,
  findPackageManifest,
  isMethodFile,
  nodeHost,
  type CompilerHost,
  type Diagnostic,
  type NameTable,
  type RoutineSource,
} from './compiler.js';
import { normalize } from './positions.js';

interface OpenDocument {
  text: string;
  version: number;
  bytes: Uint8Array;
}

interface CachedIndex {
  files: string[];
  byFile: Map<string, RoutineSource | undefined>;
  index: PackageIndex;
}

export interface PackageIndex {
  manifest: string;
  table: NameTable;
  /** Import alias → the imported manifest (absolute), and the export it names. */
  imports: Map<string, { manifest?: string; export?: string }>;
}

/**
 * What the server knows: open documents (they win over the disk), one compiler for the
 * session whose host serves open documents with a stamp per version, so a rebuild after a
 * keystroke reads and checks only the edited file (the compiler's incremental caches), and a
 * per-package index of routines for names, hover and definitions.
 */
export class Workspace {
  private readonly open = new Map<string, OpenDocument>();
  private readonly compiler;
  private readonly host: CompilerHost;
  private readonly routines = new Map<string, { text: string; routine: RoutineSource | undefined }>();
  private readonly packageFiles = new Map<string, string[]>();
  /** Rebuilt after each check of its package, so completion does not reread 1,000 files per request. */
  private readonly indexes = new Map<string, CachedIndex>();

  constructor() {
    const overlay = (p: string) => this.open.get(p);
    const stamp = (p: string, doc: OpenDocument) => `open:${p}:${doc.version}:${doc.bytes.length}`;
    this.host = {
      ...nodeHost,
      readFile: (p) => overlay(p)?.bytes ?? nodeHost.readFile(p),
      stat: (p) => {
        const doc = overlay(p);
        return doc ? { kind: 'file', size: doc.bytes.length } : nodeHost.stat(p);
      },
      readStamped: (p) => {
        const doc = overlay(p);
        return doc ? { bytes: doc.bytes, stamp: stamp(p, doc), changedAt: 0 } : nodeHost.readStamped!(p);
      },
      stamp: (p) => {
        const doc = overlay(p);
        return doc ? stamp(p, doc) : nodeHost.stamp!(p);
      },
    };
    this.compiler = createCompiler({ host: this.host });
  }

  static realPath(file: string): string {
    try {
      return realpathSync(file);
    } catch {
      return path.resolve(file);
    }
  }

  setDocument(file: string, text: string, version: number): void {
    this.open.set(file, { text, version, bytes: Buffer.from(text, 'utf8') });
  }

  closeDocument(file: string): void {
    this.open.delete(file);
  }

  /** The document's text as the editor holds it, else as on disk ('' when unreadable). */
  text(file: string): string {
    const doc = this.open.get(file);
    if (doc) return doc.text;
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  }

  manifestFor(file: string): string | undefined {
    if (path.basename(file) === 'plugin.json') return file;
    return findPackageManifest(path.dirname(file), this.host);
  }

  /**
   * Diagnostics of everything the check of `file` covers: the whole package around it (every
   * file of it, `[]` for the clean ones), or the file alone outside a package.
   */
  check(file: string): Map<string, Diagnostic[]> {
    const out = new Map<string, Diagnostic[]>([[file, []]]);
    const manifest = this.manifestFor(file);
    let diagnostics: Diagnostic[];
    if (manifest) {
      const before = this.compiler.stats.filesRead;
      const result = this.compiler.build(manifest, { bundle: false });
      diagnostics = result.diagnostics;
      // More than the edited document read in full: something changed on disk, so the names may have too.
      if (this.compiler.stats.filesRead - before > 1) this.indexes.delete(manifest);
      const files = result.files.filter((f) => f.endsWith('.md') || isMethodFile(f) || f === manifest);
      const previous = this.packageFiles.get(manifest);
      // The same list keeps its identity, so the index (keyed by it) survives the rebuild.
      if (!(previous && previous.length === files.length && previous.every((f, i) => f === files[i]))) this.packageFiles.set(manifest, files);
      for (const f of this.packageFiles.get(manifest)!) out.set(f, []);
      // A file the package does not discover (not saved yet, or skipped) is still checked on its own.
      if (file !== manifest && !this.packageFiles.get(manifest)!.includes(file) && file.endsWith('.md'))
        diagnostics = [...diagnostics, ...checkSource(file, this.text(file)).diagnostics];
    } else if (isMethodFile(file)) {
      diagnostics = checkMethod(file, this.text(file)).diagnostics;
    } else if (file.endsWith('.md')) {
      diagnostics = checkSource(file, this.text(file)).diagnostics;
    } else {
      diagnostics = [];
    }
    for (const d of diagnostics) {
      const list = out.get(d.file) ?? [];
      list.push(d);
      out.set(d.file, list);
    }
    return out;
  }

  /** The checked routine of one `.md`, cached by its text. */
  routine(file: string): RoutineSource | undefined {
    const text = this.text(file);
    const cached = this.routines.get(file);
    if (cached && cached.text === text) return cached.routine;
    const routine = checkSource(file, text).routine;
    this.routines.set(file, { text, routine });
    return routine;
  }

  /**
   * Routines and import aliases of the package around `file`, for the one resolver. Kept
   * while the package's file list is unchanged: only open documents (the ones being edited)
   * are looked at again, so completion after a keystroke does not reread the package.
   */
  index(file: string): PackageIndex | undefined {
    const manifest = this.manifestFor(file);
    if (!manifest) return undefined;
    if (!this.packageFiles.has(manifest)) this.check(manifest);
    const files = this.packageFiles.get(manifest) ?? [];
    const cached = this.indexes.get(manifest);
    if (cached && cached.files === files) {
      for (const f of this.open.keys()) if (cached.byFile.has(f)) this.refresh(cached, f);
      return cached.index;
    }
    const byFile = new Map<string, RoutineSource | undefined>();
    for (const f of files) if (f.endsWith('.md')) byFile.set(f, this.routine(f));
    const entry: CachedIndex = { files, byFile, index: { manifest, table: this.nameTable(manifest, byFile), imports: this.importsOf(manifest).imports } };
    this.indexes.set(manifest, entry);
    return entry.index;
  }

  private refresh(cached: CachedIndex, file: string): void {
    const routine = this.routine(file);
    if (cached.byFile.get(file) === routine) return;
    cached.byFile.set(file, routine);
    cached.index = { ...cached.index, table: this.nameTable(cached.index.manifest, cached.byFile) };
  }

  private nameTable(manifest: string, byFile: Map<string, RoutineSource | undefined>): NameTable {
    const sources = new Map<string, RoutineSource>();
    for (const r of byFile.values()) if (r?.name !== undefined && !sources.has(r.name)) sources.set(r.name, r);
    const { imports, externals } = this.importsOf(manifest);
    return { sources, imports: new Map([...imports.keys()].map((alias) => [alias, { alias, kind: 'opaque' as const }])), externals };
  }

  private importsOf(manifest: string): { imports: PackageIndex['imports']; externals: Set<string> } {
    const imports: PackageIndex['imports'] = new Map();
    const externals = new Set<string>();
    try {
      const ext = JSON.parse(normalize(this.text(manifest)))?.extensions?.['ai.strawberry.berry'] ?? {};
      for (const i of Array.isArray(ext.imports) ? ext.imports : []) {
        if (typeof i?.name !== 'string') continue;
        imports.set(i.name, {
          ...(typeof i.manifest === 'string' ? { manifest: path.resolve(path.dirname(manifest), i.manifest) } : {}),
          ...(typeof i.export === 'string' ? { export: i.export } : {}),
        });
      }
      for (const r of Array.isArray(ext.requires) ? ext.requires : []) if (typeof r === 'string') externals.add(r);
    } catch {
      // An unreadable manifest has its own diagnostics; names still resolve among the sources.
    }
    return { imports, externals };
  }
}
