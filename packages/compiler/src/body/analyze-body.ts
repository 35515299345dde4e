import type { SingularPath } from '../reference/jsonpath.js';
import type { Target } from '../reference/resolve-name.js';
import { fileNameMatches, reportFileName, resolveAt, type Place, type ResolveContext, type Site } from '../reference/resolve-report.js';
import { scanTemplate, type BodySpan, type ScanItem } from './scan-template.js';
import { checkTemplatePath, TEMPLATE_ROOTS } from './template-path.js';

/** A body after its names are resolved, before includes are expanded. */
export type BodyPart =
  | { kind: 'text'; text: string }
  | { kind: 'include'; target: Target; site: Site }
  | { kind: 'path'; text: string; path: SingularPath; reader: string | undefined; site: Site }
  | { kind: 'env'; name: string };

export interface AnalyzedBody {
  parts: BodyPart[];
  dependencies: Target[];
  /** The first runtime template written in this body itself (not in what it includes). */
  firstPath: Site | undefined;
}

export interface BodyOrigin {
  /** The namespace names in this body resolve in: its own source's (TPL-1 decision). */
  namespace: string | undefined;
  /** Where a span of the body is written. */
  site(span: BodySpan): Site;
  /**
   * False for an imported body: its package already expanded its includes and escaped its
   * dependencies, so a marker left in it belongs to that package and is kept as text.
   */
  resolveNames: boolean;
}

/** TPL-6 decision: `{{ env.NAME }}` with NAME like a shell variable. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const INCLUDE: Place = {
  missing: 'BP2201',
  what: 'include',
  expected: 'the name of an instructions source or import',
  advice: (name) => {
    const root = name.split('.')[0] ?? name;
    return (TEMPLATE_ROOTS as readonly string[]).includes(root) || root === 'output' ? `did you mean the runtime template \`{{ $.${name} }}\`?` : undefined;
  },
};

const DEPENDENCY: Place = { missing: 'BP2210', what: 'dependency', expected: 'the name of a source or import' };

/**
 * TPL-1..3, TPL-5, TPL-6 on one model or instructions body: reports what is malformed or
 * unresolved where it is written, and keeps what resolved. Never throws.
 */
export function analyzeBody(ctx: ResolveContext, body: string, origin: BodyOrigin): AnalyzedBody {
  const parts: BodyPart[] = [];
  const dependencies: Target[] = [];
  let firstPath: Site | undefined;
  const text = (t: string): void => {
    const last = parts[parts.length - 1];
    if (last?.kind === 'text') last.text += t;
    else parts.push({ kind: 'text', text: t });
  };
  for (const item of scanTemplate(body)) {
    switch (item.kind) {
      case 'text':
        text(item.text);
        break;
      case 'include': {
        if (!origin.resolveNames) {
          text(`{{${item.name}}}`);
          break;
        }
        const site = origin.site(item.at);
        const target = resolveAt(ctx, item.name, origin.namespace, site, INCLUDE);
        if (target && includable(ctx, item.name, target, site)) parts.push({ kind: 'include', target, site });
        break;
      }
      case 'dependency': {
        text(item.raw);
        if (!origin.resolveNames) break;
        const target = resolveAt(ctx, item.name, origin.namespace, origin.site(item.at), DEPENDENCY);
        if (target) dependencies.push(target);
        break;
      }
      case 'path': {
        const checked = checkTemplatePath(item.text);
        if (!checked.ok) {
          const start = item.at.start + checked.offset;
          origin.site(item.at).reporter.report(checked.code, origin.site({ start, end: start + checked.length }).span, checked.message, { hint: checked.hint });
          break;
        }
        const site = origin.site(item.at);
        firstPath ??= site;
        parts.push({ kind: 'path', text: item.text, path: checked.path, reader: checked.reader, site });
        break;
      }
      case 'env':
        if (ENV_NAME.test(item.name)) parts.push({ kind: 'env', name: item.name });
        else {
          origin
            .site(item.at)
            .reporter.report(
              'BP2240',
              origin.site(item.at).span,
              `Unexpected env placeholder name \`${item.name}\`, expected letters, digits and \`_\`, not starting with a digit`,
              {
                hint: 'write `{{ env.NAME }}`, such as `{{ env.API_BASE_URL }}`',
              },
            );
        }
        break;
      case 'invalid':
        reportInvalid(ctx, item, origin);
        break;
      case 'unclosed': {
        const close = item.marker === '{{' ? '}}' : ']]';
        const site = origin.site(item.at);
        site.reporter.report('BP2230', site.span, `Unexpected \`${item.marker}\` without \`${close}\` on the same line, expected \`${item.marker}…${close}\``, {
          hint: `to write \`${item.marker}\` literally, put a backslash before it: \`\\${item.marker}\``,
        });
        break;
      }
    }
  }
  return { parts, dependencies, firstPath };
}

/** TPL-1: only instructions are included; anything else is refused where it is named. */
function includable(ctx: ResolveContext, written: string, target: Target, site: Site): boolean {
  let problem: { what: string; hint: string } | undefined;
  if (target.kind === 'source') {
    const kind = ctx.table.sources.get(target.name)?.kind;
    if (kind === 'instructions') return true;
    problem = {
      what: `${kind === 'code' ? 'code' : 'model'} routine \`${target.name}\``,
      hint: `only instructions are included into a body; to call \`${written}\`, list it in \`tools\`, or write \`[[${written}]]\` to keep a readable address`,
    };
  } else if (target.kind === 'import') {
    const alias = ctx.table.imports.get(target.alias);
    if (alias?.kind === 'instructions' && alias.body !== undefined) return true;
    problem =
      alias?.kind === 'instructions'
        ? { what: `the imported instructions \`${target.alias}\` without a body`, hint: 'the import must export instructions with their text' }
        : alias?.kind === 'opaque'
          ? {
              what: `the import \`${target.alias}\` without \`export\``,
              hint: `an import without \`export\` is opaque content: address it with \`!ref ${target.alias}\``,
            }
          : {
              what: `the imported routine \`${target.alias}\``,
              hint: `only instructions are included into a body; to call \`${written}\`, list it in \`tools\``,
            };
  } else return false;
  site.reporter.report('BP2202', site.span, `Unexpected ${problem.what} in an include, expected instructions`, { hint: problem.hint });
  return false;
}

function reportInvalid(ctx: ResolveContext, item: Extract<ScanItem, { kind: 'invalid' }>, origin: BodyOrigin): void {
  const site = origin.site(item.at);
  const what = item.marker === '{{' ? 'include' : 'dependency';
  const files = origin.resolveNames ? fileNameMatches(ctx, item.inner) : [];
  if (files.length > 0) {
    reportFileName(site.reporter, site.span, item.inner, files, what);
    return;
  }
  const shown = clip(`${item.marker}${item.inner}${item.marker === '{{' ? '}}' : ']]'}`);
  const literal = `to write \`${item.marker}\` literally, put a backslash before it: \`\\${item.marker}\``;
  if (item.marker === '[[') {
    site.reporter.report('BP2211', site.span, `Unexpected \`${shown}\`, expected \`[[source.name]]\``, { hint: literal });
    return;
  }
  const first = item.inner.charAt(0);
  const hint =
    item.inner === ''
      ? `write a source name, a \`$.\` path or \`env.NAME\` inside; ${literal}`
      : '#/>^!{&'.includes(first)
        ? `Berry double braces are not Mustache or Handlebars: there are no blocks, partials or comments; ${literal}`
        : literal;
  site.reporter.report('BP2204', site.span, `Unexpected \`${shown}\`, expected \`{{source.name}}\`, \`{{ $.path }}\` or \`{{ env.NAME }}\``, { hint });
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
