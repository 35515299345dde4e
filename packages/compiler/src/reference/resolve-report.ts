import type { Code } from '../diagnostics/codes.js';
import type { RelatedLocation } from '../diagnostics/diagnostic.js';
import type { Reporter, Span } from '../diagnostics/reporter.js';
import { quoteList } from '../hints/did-you-mean.js';
import { resolveName, type NameTable, type Resolution, type Target } from './resolve-name.js';

/** Where a name or marker is written: the reporter of its file and its span there. */
export interface Site {
  reporter: Reporter;
  span: Span;
}

/** What every package-wide resolution step shares. */
export interface ResolveContext {
  table: NameTable;
  catalogGiven: boolean;
}

/** How one kind of place reports a name it cannot resolve. */
export interface Place {
  /** Code for a name that matches nothing (ambiguity is always BP2101, a file name BP2104). */
  missing: Code;
  /** "Unexpected unknown <what> `x`". */
  what: string;
  /** "…, expected <expected>". */
  expected: string;
  allowExternal?: boolean;
  /** Extra advice for a missing name, after any did-you-mean. */
  advice?: (name: string) => string | undefined;
}

/** Resolves `name` as written at `site`, reporting a missing or ambiguous name there. */
export function resolveAt(ctx: ResolveContext, name: string, namespace: string | undefined, site: Site, place: Place): Target | undefined {
  const resolution = resolveName(ctx.table, name, namespace, { allowExternal: place.allowExternal === true });
  if (resolution.ok) return resolution.target;
  reportUnresolved(ctx, name, resolution, site, place);
  return undefined;
}

export function reportUnresolved(ctx: ResolveContext, name: string, resolution: Exclude<Resolution, { ok: true }>, site: Site, place: Place): void {
  const r = site.reporter;
  // The source it names failed to parse: that error is the cause, and already reported.
  if (resolution.reason === 'unparsed') return;
  if (resolution.reason === 'ambiguous') {
    r.report('BP2101', site.span, `Unexpected ambiguous ${place.what} \`${name}\`, expected one match among ${quoteList(resolution.candidates)}`, {
      hint: `write the qualified name, ${quoteList(resolution.candidates)}: a qualified name cannot become ambiguous when sources are added`,
      related: declarations(ctx, resolution.candidates),
    });
    return;
  }
  const files = fileNameMatches(ctx, name);
  if (files.length > 0) {
    reportFileName(r, site.span, name, files, place.what);
    return;
  }
  const advice = [resolution.candidates.length > 0 ? `did you mean ${quoteList(resolution.candidates)}?` : undefined, place.advice?.(name)].filter(
    (a) => a !== undefined,
  );
  r.report(place.missing, site.span, `Unexpected unknown ${place.what} \`${name}\`, expected ${place.expected}`, {
    hint: advice.length > 0 ? advice.join('; ') : undefined,
  });
}

/** REF-5: a reference written as a file name or path gets the declared names of the files it matches. */
export function reportFileName(r: Reporter, span: Span, written: string, names: readonly string[], what: string): void {
  r.report('BP2104', span, `Unexpected file name \`${written}\` for the ${what}, expected the declared name of a source`, {
    hint: `references use declared names, not file names: did you mean ${quoteList(names)}?`,
  });
}

/**
 * REF-5: the declared names of sources whose file `written` names: `compose`, `compose.md`,
 * `notes/compose` or `./notes/compose.md` all match `…/notes/compose.md`.
 */
export function fileNameMatches(ctx: ResolveContext, written: string): string[] {
  const stem = written
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/\.md$/i, '');
  if (stem === '' || stem.endsWith('/')) return [];
  // `notes.compose` written for the file `notes/compose.md` of a source declared otherwise.
  const stems = stem.includes('/') ? [stem] : [...new Set([stem, stem.replace(/\./g, '/')])];
  const out: string[] = [];
  for (const [name, source] of ctx.table.sources) {
    const file = source.file.replace(/\\/g, '/').replace(/\.md$/i, '');
    if (stems.some((s) => file === s || file.endsWith('/' + s))) out.push(name);
  }
  return out.sort();
}

/** Where each candidate source is declared, for `related`; imports have no position here. */
function declarations(ctx: ResolveContext, names: readonly string[]): RelatedLocation[] {
  const out: RelatedLocation[] = [];
  for (const name of names) {
    const source = ctx.table.sources.get(name);
    if (!source) continue;
    const { line, column } = source.lines.position(source.nameSpan.start);
    out.push({ file: source.file, line, column, message: `\`${name}\` is declared here` });
  }
  return out;
}

/** Why a target cannot be called (TOOL-6, NEXT-5, MISC-2/3), or undefined when it can. */
export function notCallable(ctx: ResolveContext, target: Target): { what: string; hint: string } | undefined {
  if (target.kind === 'external') return undefined;
  if (target.kind === 'source') {
    const kind = ctx.table.sources.get(target.name)?.kind;
    if (kind !== 'instructions') return undefined;
    return { what: `instructions \`${target.name}\``, hint: `instructions are not callable: include them with {{${target.name}}} instead` };
  }
  const kind = ctx.table.imports.get(target.alias)?.kind;
  if (kind === 'model' || kind === 'code') return undefined;
  if (kind === 'instructions') {
    return { what: `the imported instructions \`${target.alias}\``, hint: `instructions are not callable: include them with {{${target.alias}}} instead` };
  }
  return {
    what: `the import \`${target.alias}\` without \`export\``,
    hint: `an import without \`export\` captures opaque content that only \`!ref ${target.alias}\` addresses; give the import an \`export\` naming an agent entry or exported routine`,
  };
}

/** The hint for a missing external tool, which depends on whether the build has a catalog (TOOL-6). */
export function externalAdvice(ctx: ResolveContext): (name: string) => string {
  return (name) =>
    ctx.catalogGiven
      ? `no source, import, \`requires\` entry or catalog tool is named \`${name}\``
      : `if \`${name}\` is an external tool, list it in plugin.json \`requires\` (the build has no catalog)`;
}
