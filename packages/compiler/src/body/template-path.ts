import { closest, quoteList } from '../hints/did-you-mean.js';
import { parseSingularPath, type PathSegment, type SingularPath } from '../reference/jsonpath.js';
import { mapAt, schemaRoot, seqAt, stringsOf } from '../routine/model-schema-view.js';
import { entry, type YMap, type YNode } from '../source/yaml-tree.js';

export const TEMPLATE_ROOTS = ['input', 'parent', 'calls', 'session', 'runtime', 'user'] as const;

/** TPL-4: the runtime reader each root derives. */
export const READERS = {
  context: 'runtime.context.read',
  session: 'runtime.session.read',
  state: 'runtime.session.state.read',
  catalog: 'runtime.catalog.read',
  user: 'runtime.user.profile.read',
} as const;

const CALL_FIELDS = ['id', 'name', 'status', 'input', 'output', 'outcome'] as const;
const STATE_FIELDS = ['value', 'version'] as const;

export type TemplatePath =
  | { ok: true; path: SingularPath; reader: string | undefined }
  | { ok: false; code: 'BP1501' | 'BP2220'; message: string; hint?: string; offset: number; length: number };

/**
 * TPL-3 on the text of one `{{ $… }}` template (PATH-1 first), and the reader it derives
 * (TPL-4). Offsets in a failure are relative to `text`.
 */
export function checkTemplatePath(text: string): TemplatePath {
  const parsed = parseSingularPath(text);
  const shown = `\`{{ ${text.length > 60 ? text.slice(0, 57) + '…' : text} }}\``;
  if (!parsed.ok) {
    const { error } = parsed;
    const hint =
      error.kind === 'non-singular' ? "only `.name`, `['name']` and `[index]` segments are allowed: a template selects exactly one value" : undefined;
    return failure('BP1501', `${error.message}, in the runtime template ${shown}`, error.offset, error.length, hint);
  }
  const { segments } = parsed.path;
  const refuse = (message: string, hint?: string): TemplatePath => failure('BP2220', message, 0, text.length, hint);
  const expected = `expected a path starting ${quoteList(TEMPLATE_ROOTS.map((root) => `$.${root}`))}`;
  const first = segments[0];
  if (!first) return refuse(`Unexpected \`$\` alone in the runtime template ${shown}, ${expected}`, 'select `$.input` for the whole input');
  if (first.kind === 'index') return refuse(`Unexpected index \`[${first.index}]\` as the first segment of ${shown}, ${expected}`);
  const ok = (reader: string | undefined): TemplatePath => ({ ok: true, path: parsed.path, reader });
  switch (first.name) {
    case 'input':
      return ok(undefined);
    case 'runtime':
      return ok(READERS.catalog);
    case 'user':
      return ok(READERS.user);
    case 'calls':
      return checkCalls(segments, 1, shown, refuse) ?? ok(READERS.context);
    case 'parent':
      return checkParent(segments, shown, refuse) ?? ok(READERS.context);
    case 'session':
      return checkSession(segments, shown, refuse) ?? ok(segments[1]?.kind === 'name' && segments[1].name === 'state' ? READERS.state : READERS.session);
    case 'output':
      return refuse(
        `Unexpected \`$.output\` in the runtime template ${shown}, ${expected}`,
        "a routine has no output before it completes; a successor reads its predecessor's output through `$.input`",
      );
  }
  const guess = closest(first.name, TEMPLATE_ROOTS);
  return refuse(`Unexpected root \`${first.name}\` in the runtime template ${shown}, ${expected}`, guess ? `did you mean \`$.${guess}\`?` : undefined);
}

function failure(code: 'BP1501' | 'BP2220', message: string, offset: number, length: number, hint: string | undefined): TemplatePath {
  return hint === undefined ? { ok: false, code, message, offset, length } : { ok: false, code, message, hint, offset, length };
}

type Refuse = (message: string, hint?: string) => TemplatePath;

/** `$.parent(.parent…)` then `.input…` or `.calls[i]…`; parents expose nothing else. */
function checkParent(segments: PathSegment[], shown: string, refuse: Refuse): TemplatePath | undefined {
  let at = 0;
  while (isName(segments[at], 'parent')) at++;
  const next = segments[at];
  const expected = 'expected `.input` or `.calls[i]` after `$.parent`';
  if (!next)
    return refuse(
      `Unexpected end of ${shown}, ${expected}`,
      'a parent exposes its input and its calls, such as `$.parent.input.goal` or `$.parent.calls[0].output`',
    );
  if (isName(next, 'input')) return undefined;
  if (isName(next, 'calls')) return checkCalls(segments, at + 1, shown, refuse);
  return refuse(`Unexpected ${describe(next)} in ${shown}, ${expected}`, 'a parent exposes its input and its calls, not private step state');
}

/** `calls[i]`, optionally followed by one of the call record's fields. */
function checkCalls(segments: PathSegment[], at: number, shown: string, refuse: Refuse): TemplatePath | undefined {
  const index = segments[at];
  if (index?.kind !== 'index') {
    return refuse(
      `Unexpected ${index ? describe(index) : 'end of path'} after \`calls\` in ${shown}, expected an index such as \`[0]\``,
      'calls are selected by their recorded position; there is no lookup by tool name',
    );
  }
  const field = segments[at + 1];
  if (field === undefined || (field.kind === 'name' && (CALL_FIELDS as readonly string[]).includes(field.name))) return undefined;
  const guess = field.kind === 'name' ? closest(field.name, CALL_FIELDS) : undefined;
  return refuse(
    `Unexpected ${describe(field)} after \`calls[${index.index}]\` in ${shown}, expected one of ${quoteList(CALL_FIELDS)}`,
    guess ? `did you mean \`.${guess}\`?` : undefined,
  );
}

/** `$.session…`, where `state` must go on to `.KEY.value` or `.KEY.version`. */
function checkSession(segments: PathSegment[], shown: string, refuse: Refuse): TemplatePath | undefined {
  if (!isName(segments[1], 'state')) return undefined;
  const key = segments[2];
  const field = segments[3];
  const hint = 'select a versioned State key as `$.session.state.KEY.value` or `.version` (bracket notation for keys with punctuation)';
  if (key?.kind !== 'name')
    return refuse(`Unexpected ${key ? describe(key) : 'end of path'} after \`$.session.state\` in ${shown}, expected a State key`, hint);
  if (field?.kind === 'name' && (STATE_FIELDS as readonly string[]).includes(field.name)) return undefined;
  return refuse(
    `Unexpected ${field ? describe(field) : 'end of path'} after the State key \`${key.name}\` in ${shown}, expected \`.value\` or \`.version\``,
    hint,
  );
}

function isName(segment: PathSegment | undefined, name: string): boolean {
  return segment?.kind === 'name' && segment.name === name;
}

function describe(segment: PathSegment): string {
  return segment.kind === 'name' ? `\`${segment.name}\`` : `index \`[${segment.index}]\``;
}

/**
 * TPL-3 decision: a `$.input…` template must resolve on every invocation. Returns why it
 * might not, or undefined. `input` is the routine's `input` field (undefined when omitted).
 * Levels below the first are checked only where the schema says enough (a typed object or
 * array); anything it cannot read (oneOf, untyped) is given the benefit of the doubt.
 */
export function inputMayBeMissing(path: SingularPath, input: YNode | undefined): string | undefined {
  return input === undefined ? NO_INPUT : walkInput(path, schemaRoot(input), NODE_SCHEMA);
}

/**
 * `inputMayBeMissing` of the `input` field's JSON value (`toJson`), as a build keeps it
 * (routine-facts.ts): one without `!ref`, repeated keys or keys `toJson` cannot set, for which
 * it answers as the tree does, without making the tree again.
 */
export function inputMayBeMissingJson(path: SingularPath, input: unknown): string | undefined {
  if (input === undefined) return NO_INPUT;
  let root = isObject(input) ? input : undefined;
  if (root !== undefined && Object.hasOwn(root, 'document')) {
    let parsed: unknown;
    try {
      parsed = typeof root['document'] === 'string' ? JSON.parse(root['document']) : undefined;
    } catch {
      parsed = undefined;
    }
    root = isObject(parsed) ? parsed : undefined;
  }
  return walkInput(path, root, JSON_SCHEMA);
}

const NO_INPUT = 'the routine declares no `input`, so it may be called without an argument';

/** What `walkInput` reads of a schema: the located tree or its JSON value. */
interface SchemaReader<S> {
  /** A scalar field's value; undefined for a mapping or list. */
  scalar(schema: S, key: string): unknown;
  required(schema: S): string[] | undefined;
  /** The mapping a key holds, itself or under `properties`. */
  map(schema: S | undefined, key: string): S | undefined;
}

const NODE_SCHEMA: SchemaReader<YMap> = {
  scalar: (schema, key) => {
    const v = entry(schema, key)?.value;
    return v?.kind === 'scalar' ? v.value : undefined;
  },
  required: (schema) => stringsOf(seqAt(schema, 'required')),
  map: mapAt,
};

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const JSON_SCHEMA: SchemaReader<JsonObject> = {
  scalar: (schema, key) => {
    const v = Object.hasOwn(schema, key) ? schema[key] : undefined;
    return v !== null && typeof v === 'object' ? undefined : v;
  },
  required: (schema) => {
    const v = Object.hasOwn(schema, 'required') ? schema['required'] : undefined;
    return Array.isArray(v) && v.every((item) => typeof item === 'string') ? v : undefined;
  },
  map: (schema, key) => {
    const v = schema !== undefined && Object.hasOwn(schema, key) ? schema[key] : undefined;
    return isObject(v) ? v : undefined;
  },
};

function walkInput<S>(path: SingularPath, root: S | undefined, read: SchemaReader<S>): string | undefined {
  let schema = root;
  const segments = path.segments.slice(1);
  for (let level = 0; level < segments.length; level++) {
    const segment = segments[level]!;
    const type = schema && read.scalar(schema, 'type');
    if (!schema || (type !== 'object' && type !== 'array')) {
      return level === 0
        ? `the input schema is not ${segment.kind === 'name' ? 'an object' : 'an array'} schema with that ${segment.kind === 'name' ? 'property required' : 'many items'}`
        : undefined;
    }
    if (segment.kind === 'name') {
      if (type !== 'object') return `the input schema at that level is an array, not an object`;
      const required = read.required(schema) ?? [];
      if (!required.includes(segment.name)) return `\`${segment.name}\` is not in \`required\` of the input schema${level > 0 ? ' at that level' : ''}`;
      schema = read.map(read.map(schema, 'properties'), segment.name);
    } else {
      if (type !== 'array') return `the input schema at that level is an object, not an array`;
      const min = read.scalar(schema, 'minItems');
      const needed = segment.index < 0 ? -segment.index : segment.index + 1;
      if (typeof min !== 'number' || min < needed) return `the input schema does not require at least ${needed} item${needed === 1 ? '' : 's'} (\`minItems\`)`;
      schema = read.map(schema, 'items');
    }
  }
  return undefined;
}
