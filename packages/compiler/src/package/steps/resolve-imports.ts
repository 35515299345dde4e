import path from 'node:path';
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { Reporter } from '../../diagnostics/reporter.js';
import { loadBundleFile } from '../../bundle/write-bundle.js';
import { BUNDLE_FORMAT } from '../../bundle/envelope.js';
import { contentView, type BundleFormat } from '../../bundle/content-view.js';
import type { CompilerHost } from '../../host.js';
import type { ImportDecl, ManifestInfo } from '../../manifest/index.js';
import type { ImportAlias } from '../../reference/resolve-name.js';
import type { TemplateSegment } from '../../reference/resolve-package.js';
import { checkRegularFile, refusedFileMessage } from './regular-file.js';
import { segmentsToSource } from './segments.js';
import type { PackageBuild } from '../types.js';

/** One import, compiled or loaded and verified, as the name table and the bundle need it. */
export interface CompiledImport {
  alias: ImportAlias;
  /**
   * The `content.imports` entry: the imported bundle's id, format and content as stored (what the
   * id is the digest of), embedded so the bundle is self-contained.
   */
  record: { name: string; kind: ImportDecl['kind']; id: string; format: BundleFormat; export?: string; content: unknown };
  blobs: Map<string, Uint8Array>;
}

export interface ImportContext {
  host: CompilerHost;
  store: string;
  /** Manifests being compiled, outermost first, for cycle detection. */
  stack: readonly string[];
  compileManifest(file: string): PackageBuild;
}

interface ImportedContent {
  exports?: { name: string; target: { kind: string; name?: string }; entry: boolean }[];
  sources?: Record<string, { kind?: string; template?: TemplateSegment[] }>;
}

/** MAN-5: compiles `manifest` imports recursively (cycles refused), loads and verifies `bundle` and `root` imports. */
export function resolveImports(manifest: ManifestInfo, ctx: ImportContext): { imports: CompiledImport[]; diagnostics: Diagnostic[] } {
  const r = new Reporter(manifest.file, manifest.lines);
  const extra: Diagnostic[] = [];
  const imports: CompiledImport[] = [];
  for (const decl of manifest.imports) {
    const loaded = load(decl, manifest, ctx, r, extra);
    if (!loaded) continue;
    const content = loaded.view as ImportedContent;
    let kind: ImportAlias['kind'] = 'opaque';
    let body: string | undefined;
    if (decl.export) {
      const name = decl.export.name;
      const pub = content.exports?.find((e) => e.name === name || (e.target.kind === 'source' && e.target.name === name));
      const sourceName = pub?.target.kind === 'source' ? pub.target.name : undefined;
      const source = sourceName === undefined ? undefined : content.sources?.[sourceName];
      if (!pub || !source) {
        const names = (content.exports ?? []).map((e) => '`' + e.name + '`').join(', ') || 'none';
        r.report('BP2092', decl.export.span, `Unexpected export \`${name}\`, expected a public definition of the imported package (${names})`, {
          hint: "an import can name an agent entry or a name listed in the imported package's `exports`",
        });
        continue;
      }
      kind = source.kind === 'model' || source.kind === 'code' || source.kind === 'instructions' ? source.kind : 'opaque';
      if (kind === 'instructions' && source.template) body = segmentsToSource(source.template);
    }
    const alias: ImportAlias = body === undefined ? { alias: decl.name, kind } : { alias: decl.name, kind, body };
    const record: CompiledImport['record'] = { name: decl.name, kind: decl.kind, id: loaded.id, format: loaded.format, content: loaded.stored };
    if (decl.export) record.export = decl.export.name;
    imports.push({ alias, record, blobs: loaded.blobs });
  }
  return { imports, diagnostics: [...r.diagnostics, ...extra] };
}

function load(
  decl: ImportDecl,
  manifest: ManifestInfo,
  ctx: ImportContext,
  r: Reporter,
  extra: Diagnostic[],
): { id: string; format: BundleFormat; stored: unknown; view: unknown; blobs: Map<string, Uint8Array> } | undefined {
  if (decl.kind === 'manifest') {
    const lexical = ctx.host.stat(decl.target)?.kind === 'directory' ? path.join(decl.target, 'plugin.json') : decl.target;
    // Compare real paths, so an import that reaches this package again through a link is a cycle.
    let target = lexical;
    try {
      target = ctx.host.realpath(lexical);
    } catch {
      // A missing target is reported when it is read.
    }
    const cycleAt = ctx.stack.indexOf(target);
    if (cycleAt !== -1 || target === manifest.file) {
      const base = path.dirname(path.dirname(manifest.file));
      const cycle = [...ctx.stack.slice(cycleAt === -1 ? ctx.stack.length - 1 : cycleAt), target].map((f) => path.relative(base, f).split(path.sep).join('/'));
      r.report('BP2090', decl.targetSpan, `Unexpected import cycle ${cycle.join(' → ')}, expected packages that do not import themselves`, {
        hint: 'move what both packages need into a third package that both import',
      });
      return undefined;
    }
    // Never read a FIFO (it blocks forever), a device (/dev/zero never ends) or a file too
    // large to be text: refused at the import, before compiling (and reading) it.
    if (!regularFile(lexical, decl, manifest, ctx, r)) return undefined;
    const built = ctx.compileManifest(target);
    extra.push(...built.diagnostics);
    if (!built.result) {
      r.report('BP2091', decl.targetSpan, `Unexpected errors in the imported package \`${decl.name}\`, expected it to build`, {
        hint: 'fix the diagnostics reported for its files',
      });
      return undefined;
    }
    // The package was compiled just now, in the format this compiler writes: its view cannot fail.
    const plain = built.result.plain;
    return {
      id: built.result.bundle.id,
      format: BUNDLE_FORMAT,
      stored: plain,
      view: contentView(BUNDLE_FORMAT, plain),
      blobs: new Map(built.result.bundle.blobs),
    };
  }
  const file = decl.kind === 'bundle' ? decl.target : path.join(ctx.store, `${decl.target}.berry.json`);
  // Through the host, like a manifest import, so a watcher learns of the file too; the loader
  // checks the opened descriptor again, so a swap after this check cannot block it either.
  if (!regularFile(file, decl, manifest, ctx, r)) return undefined;
  const loaded = loadBundleFile(file, decl.kind === 'root' ? { expectedId: decl.target } : {});
  if (!loaded.ok) {
    const what = decl.kind === 'root' ? `retained content ${decl.target} in the store ${ctx.store}` : `the bundle ${decl.target}`;
    r.report('BP2093', decl.targetSpan, `Unexpected ${what}: ${loaded.error.message}`, {
      hint: decl.kind === 'root' ? 'build the package into the store (`berrypack build --out-dir STORE`) or pass `--store DIR`' : 'rebuild the imported bundle',
    });
    return undefined;
  }
  return { id: loaded.bundle.id, format: loaded.bundle.format, stored: loaded.bundle.stored, view: loaded.bundle.content, blobs: loaded.blobs ?? new Map() };
}

/** MAN-5: an imported manifest or bundle must be a regular file of at most MAX_TEXT_BYTES (BP2094); missing files are left to the reader. */
function regularFile(file: string, decl: ImportDecl, manifest: ManifestInfo, ctx: ImportContext, r: Reporter): boolean {
  const check = checkRegularFile(ctx.host, file);
  if (check.status !== 'refused') return true;
  const shown = decl.kind === 'root' ? file : path.relative(manifest.dir, file).split(path.sep).join('/');
  const what = decl.kind === 'root' ? `${shown} for the \`root\` import \`${decl.name}\`` : `\`${shown}\` for the \`${decl.kind}\` import \`${decl.name}\``;
  const expected = decl.kind === 'manifest' ? 'a regular plugin.json file' : 'a regular bundle file';
  r.report('BP2094', decl.targetSpan, refusedFileMessage(check, what, expected), {
    hint:
      check.kind === 'too-large'
        ? `${decl.kind === 'manifest' ? 'a plugin.json' : 'a bundle'} is a JSON text file; name the right file`
        : decl.kind === 'manifest'
          ? "name the other package's plugin.json file itself, not a pipe, a device or a link to one"
          : 'name a bundle file written by `berrypack build`, not a pipe, a device or a link to one',
  });
  return false;
}
