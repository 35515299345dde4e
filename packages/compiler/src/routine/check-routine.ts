import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Code } from '../diagnostics/codes.js';
import type { Reporter, Span } from '../diagnostics/reporter.js';
import { checkSchemaField } from '../schema/check-schema.js';
import { parseSource, type ParsedSource, type ParseSourceOptions } from '../source/parse-source.js';
import { entry, type YMap, type YNode } from '../source/yaml-tree.js';
import { checkClassification } from './check-classification.js';
import { checkModelField } from './check-model.js';
import { checkCompactionField, checkConfigureField, checkPermissionsField, checkRouteField } from './check-misc.js';
import { checkNextField } from './check-next.js';
import { checkPortField } from './check-port.js';
import { checkToolsField } from './check-tools.js';
import type { RoutineContext, SourceKind } from './context.js';
import { expectBoolean, expectString, unknownFieldHint } from './expect.js';
import { ALL_FIELDS, FIELDS, TOP_LEVEL_HOMES } from './inventory.js';
import { checkName } from './names.js';
import type { RoutineFacts } from './routine-facts.js';

/** A source that parsed well enough to take part in package-wide checks. */
export interface RoutineSource extends ParsedSource {
  kind: SourceKind;
  frontmatter: YMap;
  /** Undefined when `name` was missing or invalid. */
  name: string | undefined;
  nameSpan: Span;
  /** Set by the compiler once the source passed its own check: `frontmatter` then lacks the copied fields (routine-facts.ts). */
  facts?: RoutineFacts;
}

export interface CheckSourceResult {
  status: 'source' | 'documentation' | 'invalid';
  routine: RoutineSource | undefined;
  diagnostics: Diagnostic[];
}

const KIND_CODES: Record<SourceKind, Code> = { instructions: 'BP1111', model: 'BP1112', code: 'BP1113' };

/** Checks one routine `.md` file on its own: SRC, NAME, KIND and every field's shape. */
export function checkSource(file: string, input: Uint8Array | string, options: ParseSourceOptions = {}): CheckSourceResult {
  const parsed = parseSource(file, input, options);
  if (parsed.status === 'documentation') return { status: 'documentation', routine: undefined, diagnostics: parsed.diagnostics };
  if (parsed.status === 'unreadable') return { status: 'invalid', routine: undefined, diagnostics: parsed.diagnostics };
  const { source, reporter } = parsed;
  if (!source.frontmatter) return { status: 'invalid', routine: undefined, diagnostics: reporter.diagnostics };
  const routine = checkRoutine(source, source.frontmatter, reporter);
  return { status: reporter.errorCount > 0 ? 'invalid' : 'source', routine, diagnostics: reporter.diagnostics };
}

function checkRoutine(source: ParsedSource, fm: YMap, r: Reporter): RoutineSource {
  const modelEntry = entry(fm, 'model');
  const languageEntry = entry(fm, 'language');
  if (modelEntry && languageEntry) {
    r.report('BP1110', languageEntry.keySpan, 'Unexpected `language` beside `model`, expected exactly one source kind', {
      hint: 'a model routine has `model`; a code routine has `language: javascript`; instructions have neither',
      related: [r.locate(modelEntry.keySpan, '`model` is here')],
    });
  }
  const kind: SourceKind = modelEntry ? 'model' : languageEntry ? 'code' : 'instructions';
  const allowed = FIELDS[kind];
  for (const e of fm.entries) {
    if (allowed.includes(e.key) || (e === languageEntry && modelEntry)) continue;
    if (ALL_FIELDS.includes(e.key)) {
      r.report(KIND_CODES[kind], e.keySpan, `Unexpected \`${e.key}\` in ${kindLabel(kind)}, expected one of ${allowed.map((f) => '`' + f + '`').join(', ')}`, {
        hint: kindHint(kind, e.key),
      });
    } else {
      r.report('BP1020', e.keySpan, `Unexpected field \`${e.key}\`, expected one of ${allowed.map((f) => '`' + f + '`').join(', ')}`, {
        hint: unknownFieldHint(e.key, allowed, TOP_LEVEL_HOMES),
      });
    }
  }

  const nameSpan = entry(fm, 'name')?.value.span ?? source.fenceSpan;
  const name = checkIdentity(fm, r, source.fenceSpan);
  checkBody(source, kind, r);

  const ctx: RoutineContext = { reporter: r, kind, frontmatter: fm, ...readFacts(fm) };
  const at = (key: string): YNode | undefined => (allowed.includes(key) ? entry(fm, key)?.value : undefined);
  const visibility = at('visibility');
  if (visibility) {
    const v = expectString(r, visibility, 'BP1117', '`visibility`');
    if (v !== undefined && v !== 'public' && v !== 'private')
      r.report('BP1117', visibility, `Unexpected \`${v}\` for \`visibility\`, expected \`public\` or \`private\``);
  }
  const language = at('language');
  if (language) {
    const v = expectString(r, language, 'BP1116', '`language`');
    if (v !== undefined && v !== 'javascript')
      r.report('BP1116', language, `Unexpected \`${v}\` for \`language\`, expected \`javascript\``, {
        hint: v.toLowerCase() === 'javascript' || v === 'js' ? 'write `language: javascript`' : undefined,
      });
  }
  const catalog = at('catalog');
  if (catalog) expectBoolean(r, catalog, 'BP1118', '`catalog`');

  const input = at('input');
  if (input) checkSchemaField(ctx, input, 'input');
  const output = at('output');
  if (output) checkSchemaField(ctx, output, 'output');
  const model = at('model');
  if (model) checkModelField(ctx, model);
  const port = at('port');
  if (port) checkPortField(ctx, port);
  const tools = at('tools');
  if (tools) checkToolsField(ctx, tools);
  const next = at('next');
  if (next) checkNextField(ctx, next);
  const compaction = at('compaction');
  if (compaction) checkCompactionField(ctx, compaction);
  const configure = at('configure');
  if (configure) checkConfigureField(ctx, configure);
  const route = at('route');
  if (route) checkRouteField(ctx, route);
  const permissions = at('permissions');
  if (permissions) checkPermissionsField(ctx, permissions);
  if (ctx.operation === 'classification') checkClassification(ctx);

  return { ...source, kind, frontmatter: fm, name, nameSpan };
}

/** SRC-7, SRC-8, NAME-1, NAME-2. */
function checkIdentity(fm: YMap, r: Reporter, fence: Span): string | undefined {
  let name: string | undefined;
  const nameEntry = entry(fm, 'name');
  if (!nameEntry) {
    r.report('BP1060', fence, 'Unexpected end of frontmatter, expected `name`', {
      hint: 'add `name: your.routine` (the full logical name, namespace included)',
    });
  } else {
    const value = expectString(r, nameEntry.value, 'BP1060', '`name`', { nonempty: true });
    if (value !== undefined) {
      const problem = checkName(value);
      if (problem) r.report(problem.rule === 'NAME-2' ? 'BP1101' : 'BP1100', nameEntry.value, problem.message, { hint: problem.hint });
      else name = value;
    }
  }
  const description = entry(fm, 'description');
  if (!description) {
    r.report('BP1060', fence, 'Unexpected end of frontmatter, expected `description`', { hint: 'add `description:` saying what the routine does' });
  } else {
    expectString(r, description.value, 'BP1060', '`description`', { nonempty: true });
  }
  const title = entry(fm, 'title');
  if (title) {
    const value = expectString(r, title.value, 'BP1070', '`title`', { nonempty: true });
    if (value !== undefined) {
      const length = [...value].length;
      if (length > 256) r.report('BP1070', title.value, `Unexpected \`title\` of ${length} characters, expected at most 256`);
    }
  }
  return name;
}

/** KIND-5: instructions and model bodies hold the text the model reads. */
function checkBody(source: ParsedSource, kind: SourceKind, r: Reporter): void {
  if (kind === 'code' || source.body.trim() !== '') return;
  r.report(
    'BP1115',
    source.fenceSpan,
    `Unexpected empty body, expected the ${kind === 'model' ? 'instructions of the model routine' : 'reusable instructions'} after the closing \`---\``,
  );
}

function readFacts(fm: YMap): Pick<RoutineContext, 'port' | 'operation' | 'session'> {
  const port = mapAt(fm, 'port');
  const flag = (key: string): boolean => {
    const v = port && entry(port, key)?.value;
    return v?.kind === 'scalar' && v.value === true;
  };
  const select = mapAt(mapAt(fm, 'model'), 'select');
  const operation = scalarAt(select, 'operation');
  const interaction = scalarAt(select, 'interaction');
  const trigger = scalarAt(mapAt(select, 'session'), 'trigger');
  return {
    port: { input: flag('input'), output: flag('output') },
    operation: operation === 'generation' || operation === 'classification' ? operation : undefined,
    session: interaction === 'session' ? (trigger === 'voice_activity' ? 'voice' : 'bounded') : undefined,
  };
}

function mapAt(map: YMap | undefined, key: string): YMap | undefined {
  const v = map && entry(map, key)?.value;
  return v?.kind === 'map' ? v : undefined;
}

function scalarAt(map: YMap | undefined, key: string): unknown {
  const v = map && entry(map, key)?.value;
  return v?.kind === 'scalar' ? v.value : undefined;
}

function kindLabel(kind: SourceKind): string {
  return kind === 'instructions' ? 'instructions (no `model`, no `language`)' : kind === 'model' ? 'a model routine' : 'a code routine';
}

function kindHint(kind: SourceKind, key: string): string | undefined {
  if (kind === 'instructions') return `instructions are not callable; add \`model\` or \`language: javascript\` to make a routine that accepts \`${key}\``;
  if (kind === 'model' && (key === 'catalog' || key === 'language')) return `\`${key}\` belongs to code routines`;
  if (kind === 'code' && ['model', 'configure', 'route', 'compaction'].includes(key)) return `\`${key}\` belongs to model routines`;
  return undefined;
}
