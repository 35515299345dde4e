import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  CompletionItemKind,
  MarkupKind,
  type CodeAction,
  type CompletionItem,
  type Diagnostic as LspDiagnostic,
  type Hover,
  type Location,
  type Position,
} from 'vscode-languageserver';
import {
  ALL_KEYWORDS,
  entry,
  FIELD_VALUES,
  FIELDS,
  KEYWORDS_BY_TYPE,
  MANIFEST_FIELD_DOCS,
  NAME_VALUE_PATHS,
  namespaceOf,
  NESTED_KEYS,
  resolveName,
  ROUTINE_FIELD_DOCS,
  routineReferences,
  SCHEMA_TYPE_VALUES,
  toJson,
  type RoutineReference,
  type RoutineSource,
  type Target,
} from './compiler.js';
import { normalize, offsetAt, offsetRange } from './positions.js';
import type { PackageIndex, Workspace } from './workspace.js';
import { cursorContext, fenceLine, parentPath, siblingType, tablePath } from './yaml-context.js';

const uriOf = (file: string) => pathToFileURL(file).href;

function keyDoc(pathKey: string): string | undefined {
  return ROUTINE_FIELD_DOCS[pathKey];
}

function kindOf(normalized: string): 'model' | 'code' | 'instructions' | undefined {
  const lines = normalized.split('\n');
  const fence = fenceLine(lines);
  const top = lines.slice(1, fence);
  if (top.some((l) => /^model:/.test(l))) return 'model';
  if (top.some((l) => /^language:/.test(l))) return 'code';
  return top.length || fence > 0 ? 'instructions' : undefined;
}

/** Frontmatter keys per kind and nested mapping, routine names where REF-1 reads one, schema keywords, closed values. */
export function complete(ws: Workspace, file: string, position: Position): CompletionItem[] {
  if (!file.endsWith('.md')) return [];
  const normalized = normalize(ws.text(file));
  const ctx = cursorContext(normalized, position.line, position.character);
  if (ctx.where === 'none') return [];
  if (ctx.where === 'body') return names(ws, file, ctx.marker === '{{' ? 'include' : 'any');
  const at = tablePath(ctx.path);
  const inSchema = ctx.path[0] === 'input' || ctx.path[0] === 'output';
  if (ctx.where === 'key') {
    const lines = normalized.split('\n');
    const fence = fenceLine(lines);
    const present = new Set(
      lines
        .slice(1, fence)
        .flatMap((l, i) =>
          i + 1 !== ctx.line && parentPath(lines, i + 1, l.length - l.trimStart().length).join('.') === ctx.path.join('.')
            ? [/^\s*(?:- +)?([^\s:#]+):/.exec(l)?.[1] ?? '']
            : [],
        ),
    );
    let keys: readonly string[];
    if (ctx.path.length === 0) {
      const kind = kindOf(normalized) ?? 'instructions';
      keys = kind === 'instructions' ? [...FIELDS.instructions, 'model', 'language'] : FIELDS[kind];
    } else if (inSchema) {
      if (ctx.path[ctx.path.length - 1] === 'properties') return [];
      const type = siblingType(normalized, ctx.line, ctx.indent);
      keys = type && type in KEYWORDS_BY_TYPE ? KEYWORDS_BY_TYPE[type as keyof typeof KEYWORDS_BY_TYPE] : ALL_KEYWORDS;
    } else {
      keys = NESTED_KEYS[at] ?? [];
    }
    return keys
      .filter((k) => !present.has(k))
      .map((k, i) => {
        const doc = inSchema
          ? `Native schema keyword${ctx.path.length ? '' : ''}.`
          : keyDoc(ctx.path.length ? `${at}.${k}`.replace(/^tools\.\*\./, 'tools.') : k);
        return {
          label: k,
          kind: CompletionItemKind.Property,
          insertText: `${k}: `,
          sortText: String(i).padStart(3, '0'),
          ...(doc ? { documentation: { kind: MarkupKind.Markdown, value: doc } } : {}),
        };
      });
  }
  if (NAME_VALUE_PATHS.includes(at)) return names(ws, file, 'any');
  const values = inSchema && ctx.path[ctx.path.length - 1] === 'type' ? SCHEMA_TYPE_VALUES : FIELD_VALUES[at];
  return (values ?? []).map((v) => ({ label: String(v), kind: CompletionItemKind.EnumMember, insertText: v === 'null' ? `'null'` : String(v) }));
}

/** Routine names of the package (siblings first) and import aliases; `include`: only what `{{name}}` may include. */
function names(ws: Workspace, file: string, which: 'include' | 'any'): CompletionItem[] {
  const index = ws.index(file);
  if (!index) return [];
  const own = ws.routine(file);
  const ns = own?.name !== undefined ? namespaceOf(own.name) : undefined;
  const items: CompletionItem[] = [];
  for (const [name, r] of index.table.sources) {
    if (name === own?.name || (which === 'include' && r.kind !== 'instructions')) continue;
    const sibling = ns !== undefined && namespaceOf(name) === ns;
    const description = stringAt(r, 'description');
    items.push({
      label: name,
      kind: r.kind === 'instructions' ? CompletionItemKind.Text : CompletionItemKind.Function,
      detail: `${r.kind}${stringAt(r, 'title') ? ` · ${stringAt(r, 'title')}` : ''}`,
      ...(description ? { documentation: { kind: MarkupKind.Markdown, value: description } } : {}),
      sortText: `${sibling ? 0 : 1}${name}`,
    });
  }
  for (const alias of index.imports.keys()) items.push({ label: alias, kind: CompletionItemKind.Module, detail: 'import', sortText: `2${alias}` });
  return items;
}

function stringAt(r: RoutineSource, key: string): string | undefined {
  const v = entry(r.frontmatter, key)?.value;
  return v?.kind === 'scalar' && typeof v.value === 'string' ? v.value : undefined;
}

/** The reference under the cursor, resolved by the one resolver (REF-2). */
function referenceAt(
  ws: Workspace,
  file: string,
  position: Position,
): { ref: RoutineReference; target: Target | undefined; index: PackageIndex | undefined; routine?: RoutineSource } | undefined {
  if (path.basename(file) === 'plugin.json') return manifestReferenceAt(ws, file, position);
  if (!file.endsWith('.md')) return undefined;
  const routine = ws.routine(file);
  if (!routine) return undefined;
  const text = ws.text(file);
  const offset = offsetAt(text, normalize(text), position);
  const ref = routineReferences(routine).find((r) => r.start <= offset && offset <= r.end);
  if (!ref) return undefined;
  const index = ws.index(file);
  if (!index) return { ref, target: undefined, index, routine };
  const ns = routine.name !== undefined ? namespaceOf(routine.name) : '';
  const resolved = resolveName(index.table, ref.name, ns, { allowExternal: ref.allowExternal });
  return { ref, target: resolved.ok ? resolved.target : undefined, index, routine };
}

/**
 * An agent's `entry` or an `exports` item in plugin.json: names the resolver resolves with no
 * caller namespace (REF-3). Read from the text around the cursor, so it works while the JSON is
 * being edited.
 */
function manifestReferenceAt(
  ws: Workspace,
  file: string,
  position: Position,
): { ref: RoutineReference; target: Target | undefined; index: PackageIndex | undefined } | undefined {
  const text = ws.text(file);
  const normalized = normalize(text);
  const offset = offsetAt(text, normalized, position);
  const string = /"((?:[^"\\\n]|\\.)*)"/g;
  for (let m = string.exec(normalized); m; m = string.exec(normalized)) {
    if (m.index > offset) break;
    if (offset > m.index + m[0].length) continue;
    const before = normalized.slice(0, m.index);
    const exportsAt = before.lastIndexOf('"exports"');
    const inExports = exportsAt !== -1 && /^"exports"\s*:\s*\[[^\]]*$/.test(before.slice(exportsAt));
    if (!/"entry"\s*:\s*$/.test(before) && !inExports) return undefined;
    const ref: RoutineReference = {
      name: m[1]!,
      role: inExports ? 'export' : 'entry',
      start: m.index + 1,
      end: m.index + m[0].length - 1,
      allowExternal: false,
    };
    const index = ws.index(file);
    const resolved = index && resolveName(index.table, ref.name, undefined);
    return { ref, target: resolved?.ok ? resolved.target : undefined, index };
  }
  return undefined;
}

export function definition(ws: Workspace, file: string, position: Position): Location[] {
  const found = referenceAt(ws, file, position);
  if (!found?.target || !found.index) return [];
  const target = found.target;
  if (target.kind === 'source') {
    const r = found.index.table.sources.get(target.name)!;
    return [locationOf(ws, r)];
  }
  if (target.kind === 'import') {
    const imp = found.index.imports.get(target.alias);
    if (!imp?.manifest) return [];
    // With `export`, the imported package's routine itself; else its manifest.
    const exported = imp.export !== undefined ? ws.index(imp.manifest)?.table.sources.get(imp.export) : undefined;
    return [exported ? locationOf(ws, exported) : { uri: uriOf(imp.manifest), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }];
  }
  return [];
}

function locationOf(ws: Workspace, r: RoutineSource): Location {
  const text = ws.text(r.file);
  return { uri: uriOf(r.file), range: offsetRange(text, normalize(text), r.nameSpan.start, r.nameSpan.end) };
}

export function hover(ws: Workspace, file: string, position: Position): Hover | null {
  const found = referenceAt(ws, file, position);
  if (found) {
    const text = ws.text(file);
    const range = offsetRange(text, normalize(text), found.ref.start, found.ref.end);
    const t = found.target;
    if (!t)
      return {
        range,
        contents: { kind: MarkupKind.Markdown, value: `\`${found.ref.name}\`: no routine, import or external tool of this package has this name` },
      };
    if (t.kind === 'source') return { range, contents: { kind: MarkupKind.Markdown, value: routineCard(found.index!.table.sources.get(t.name)!) } };
    if (t.kind === 'import') {
      const imp = found.index!.imports.get(t.alias);
      return {
        range,
        contents: {
          kind: MarkupKind.Markdown,
          value: `**${t.alias}** (import${imp?.export ? ` of \`${imp.export}\`` : ''})${imp?.manifest ? `\n\nfrom \`${path.relative(path.dirname(found.index!.manifest), imp.manifest)}\`` : ''}`,
        },
      };
    }
    return { range, contents: { kind: MarkupKind.Markdown, value: `**${t.name}**: an external tool, provided by the host` } };
  }
  return keyHover(ws, file, position);
}

function routineCard(r: RoutineSource): string {
  const parts = [`**${r.name}** · ${r.kind}${stringAt(r, 'title') ? ` · ${stringAt(r, 'title')}` : ''}`];
  const description = stringAt(r, 'description');
  if (description) parts.push(description);
  for (const key of ['input', 'output']) {
    const v = entry(r.frontmatter, key)?.value;
    if (v) parts.push(`${key}:\n\`\`\`json\n${JSON.stringify(toJson(v), null, 2)}\n\`\`\``);
  }
  return parts.join('\n\n');
}

/** A frontmatter key (the spec's words) or a plugin.json key. */
function keyHover(ws: Workspace, file: string, position: Position): Hover | null {
  const normalized = normalize(ws.text(file));
  const lines = normalized.split('\n');
  const line = lines[position.line] ?? '';
  if (path.basename(file) === 'plugin.json') {
    const m = /"([^"]+)"\s*:/g;
    for (let x = m.exec(line); x; x = m.exec(line)) {
      if (position.character >= x.index && position.character <= x.index + x[1]!.length + 2 && MANIFEST_FIELD_DOCS[x[1]!]) {
        return {
          contents: { kind: MarkupKind.Markdown, value: `**${x[1]}**: ${MANIFEST_FIELD_DOCS[x[1]!]}` },
          range: { start: { line: position.line, character: x.index }, end: { line: position.line, character: x.index + x[1]!.length + 2 } },
        };
      }
    }
    return null;
  }
  const fence = fenceLine(lines);
  if (!file.endsWith('.md') || position.line === 0 || position.line >= fence) return null;
  const m = /^( *)(- +)?([^\s:#][^:#]*?):/.exec(line);
  if (!m) return null;
  const start = m[1]!.length + (m[2]?.length ?? 0);
  if (position.character < start || position.character > start + m[3]!.length) return null;
  const at = tablePath([...parentPath(lines, position.line, start), m[3]!]);
  const doc = ROUTINE_FIELD_DOCS[at] ?? ROUTINE_FIELD_DOCS[at.replace(/^tools\.\*\./, 'tools.')];
  return doc
    ? {
        contents: { kind: MarkupKind.Markdown, value: `**${at}**: ${doc}` },
        range: { start: { line: position.line, character: start }, end: { line: position.line, character: start + m[3]!.length } },
      }
    : null;
}

/** Quick fixes: quote a value caught by the colon-space trap (SRC-6), and each "did you mean" replacement. */
export function codeActions(ws: Workspace, file: string, diagnostics: LspDiagnostic[]): CodeAction[] {
  const lines = ws.text(file).split(/\r\n?|\n/);
  const actions: CodeAction[] = [];
  const uri = uriOf(file);
  for (const d of diagnostics) {
    if (d.source !== 'berrypack' || d.range.start.line !== d.range.end.line) continue;
    const written = (lines[d.range.start.line] ?? '').slice(d.range.start.character, d.range.end.character);
    const edit = (newText: string) => ({ changes: { [uri]: [{ range: d.range, newText }] } });
    if (d.code === 'BP1050' && written) {
      actions.push({
        title: 'Quote the value',
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        isPreferred: true,
        edit: edit(`'${written.replace(/'/g, "''")}'`),
      });
      continue;
    }
    const hint = (d.data as { hint?: string } | undefined)?.hint;
    const guess = hint && /did you mean ([^?]+)\?/.exec(hint);
    if (!guess || !written) continue;
    const candidates = [...guess[1]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!);
    candidates.forEach((c, i) =>
      actions.push({
        title: `Replace \`${written}\` with \`${c}\``,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        isPreferred: i === 0 && candidates.length === 1,
        edit: edit(c),
      }),
    );
  }
  return actions;
}
