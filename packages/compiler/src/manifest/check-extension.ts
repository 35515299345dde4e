import type { Reporter } from '../diagnostics/reporter.js';
import { entry, type YMap, type YNode } from '../source/yaml-tree.js';
import { checkImports } from './check-imports.js';
import { checkResources } from './check-resources.js';
import { jsonValue } from '../json/json-value.js';
import { checkRelativePath, resolveInside } from './paths.js';
import { checkFields, expectArray, expectName, expectObject, expectText } from './shape.js';
import type { AgentDecl, ManifestInfo, NameRef } from './types.js';

export const EXTENSION_FIELDS = ['agents', 'exports', 'sources', 'imports', 'resources', 'interfaces', 'requires', 'runtime'] as const;
export const AGENT_FIELDS = ['title', 'description', 'entry', 'welcome', 'icons', 'presentation'] as const;

const AUTHORITY = 'installation authority is granted when the package is prepared, never declared in the source manifest';
const SETTINGS = 'user settings belong to an installation, not to the source manifest';
const LIMITS = 'runtime limits belong in runtime.yaml beside the manifest';
const DERIVED = 'requirements are derived from the sources; `requires` lists only external tools for composition';
const METADATA = 'belongs at the top level of plugin.json, beside `name`';

/** Folded key → why it does not belong in the Berry extension (MAN-2). */
const EXTENSION_HINTS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ['permissions', 'permission', 'grants', 'authority', 'install', 'installation', 'hooks', 'postinstall', 'scopes'].map((k) => [k, AUTHORITY]),
  ),
  ...Object.fromEntries(['settings', 'usersettings', 'config', 'configuration', 'preferences', 'env', 'environment', 'secrets'].map((k) => [k, SETTINGS])),
  ...Object.fromEntries(['limits', 'runtimelimits', 'timeout', 'memory', 'cpu', 'quota'].map((k) => [k, LIMITS])),
  ...Object.fromEntries(['models', 'readers', 'requirements', 'connections', 'tools'].map((k) => [k, DERIVED])),
  ...Object.fromEntries(['name', 'version', 'description', 'author', 'license', 'homepage', 'keywords', 'title'].map((k) => [k, METADATA])),
  services: 'launch processes in ordinary routines; there are no service startup lists',
  startup: 'launch processes in ordinary routines; there are no service startup lists',
  routines: 'routines are discovered in the `sources` directory; there are no inline routines',
  entry: 'declare `agents: {"<id>": {"title", "description", "entry"}}`; a library declares `exports`',
  main: 'declare `agents: {"<id>": {"title", "description", "entry"}}`; a library declares `exports`',
  export: 'did you mean `exports`? it is a list of names',
};

const AGENT_HINTS: Readonly<Record<string, string>> = {
  name: 'the agent id is its key in `agents`',
  id: 'the agent id is its key in `agents`',
  model: "model settings belong in the entry routine's frontmatter",
  ...Object.fromEntries(['permissions', 'grants', 'tools'].map((k) => [k, AUTHORITY])),
  ...Object.fromEntries(['routine', 'main', 'export'].map((k) => [k, 'did you mean `entry`? it names the routine the agent starts'])),
};

/** What the Berry extension declares: the manifest fields that come from it. */
export type ExtensionDecls = Pick<
  ManifestInfo,
  'sourcesDir' | 'sourcesSpan' | 'agents' | 'exports' | 'imports' | 'resources' | 'requires' | 'interfaces' | 'runtime'
>;

/** MAN-2..MAN-7 shape checks of `extensions["ai.strawberry.berry"]`. */
export function checkExtension(r: Reporter, ext: YMap, dir: string): ExtensionDecls {
  checkFields(r, ext, EXTENSION_FIELDS, 'BP2011', 'the Berry extension', EXTENSION_HINTS);
  const at = (key: string) => entry(ext, key);
  const out: ExtensionDecls = {
    sourcesDir: dir,
    sourcesSpan: undefined,
    agents: [],
    exports: [],
    imports: [],
    resources: [],
    requires: [],
    interfaces: [],
    runtime: undefined,
  };

  const sources = at('sources');
  if (sources) {
    out.sourcesSpan = sources.value.span;
    const value = expectText(r, sources.value, 'BP2030', '`sources`', false);
    if (value !== undefined) {
      const checked = checkRelativePath(value, '`sources`', true);
      if (checked.ok) out.sourcesDir = resolveInside(dir, checked.normalized);
      else r.report('BP2030', sources.value, checked.message, { hint: checked.hint });
    }
  }

  const agents = at('agents');
  if (agents) out.agents = checkAgents(r, agents.value);
  const exports = at('exports');
  if (exports) out.exports = checkNameList(r, exports.value, 'BP2021', '`exports`', 'export');
  // `{}` and `[]` declare nothing public either.
  const none = (e: typeof agents) => !e || (e.value.kind === 'map' && e.value.entries.length === 0) || (e.value.kind === 'seq' && e.value.items.length === 0);
  if (none(agents) && none(exports)) {
    r.report('BP2022', ext, 'Unexpected Berry extension without `agents` or `exports`, expected at least one public definition', {
      hint: 'an application declares `agents`; a library declares `exports` (a list of source names)',
    });
  }

  const requires = at('requires');
  if (requires) {
    const value = requires.value;
    const derived = value.kind === 'map' && value.entries.some((e) => ['models', 'readers', 'connections'].includes(e.key));
    if (value.kind === 'map') {
      r.report('BP2060', value, `Unexpected ${derived ? 'object of requirements' : 'object'} for \`requires\`, expected an array of external tool names`, {
        hint: derived
          ? 'models, readers and connections are derived from the sources; `requires` lists only external tools, e.g. `["notes.compose"]`'
          : 'write `["tool.name", …]`',
      });
    } else out.requires = checkNameList(r, value, 'BP2060', '`requires`', 'tool');
  }

  const imports = at('imports');
  if (imports) out.imports = checkImports(r, imports.value, dir);
  const resources = at('resources');
  if (resources) out.resources = checkResources(r, resources.value, dir);

  const interfaces = at('interfaces');
  if (interfaces) {
    const list = expectArray(r, interfaces.value, 'BP2012', '`interfaces`');
    if (list) {
      for (const item of list.items) if (expectObject(r, item, 'BP2012', 'an interface offer')) out.interfaces.push(jsonValue(item));
    }
  }
  const runtime = at('runtime');
  if (runtime && expectObject(r, runtime.value, 'BP2012', '`runtime`')) out.runtime = jsonValue(runtime.value);
  return out;
}

function checkAgents(r: Reporter, node: YNode): AgentDecl[] {
  const map = expectObject(r, node, 'BP2020', '`agents`', 'write `{"<agent id>": {"title": …, "description": …, "entry": …}}`');
  if (!map) return [];
  const agents: AgentDecl[] = [];
  for (const e of map.entries) {
    const id = expectName(r, { kind: 'scalar', span: e.keySpan, value: e.key, style: 'double', ref: false, empty: false }, 'BP2020', 'agent id');
    const body = expectObject(r, e.value, 'BP2020', `agent \`${e.key}\``);
    if (!body) continue;
    checkFields(r, body, AGENT_FIELDS, 'BP2020', `agent \`${e.key}\``, AGENT_HINTS);
    const field = (key: string, read: (n: YNode) => string | undefined): string | undefined => {
      const f = entry(body, key);
      if (f) return read(f.value);
      r.report('BP2020', e.keySpan, `Unexpected agent \`${e.key}\` without \`${key}\`, expected \`title\`, \`description\` and \`entry\``, {
        hint: key === 'entry' ? 'name the routine that starts this agent: `"entry": "converse"`' : `add a nonempty \`${key}\` describing the agent to people`,
      });
      return undefined;
    };
    const title = field('title', (n) => expectText(r, n, 'BP2020', `the title of agent \`${e.key}\``));
    const description = field('description', (n) => expectText(r, n, 'BP2020', `the description of agent \`${e.key}\``));
    const entryName = field('entry', (n) => expectName(r, n, 'BP2020', `the entry of agent \`${e.key}\``));
    if (id === undefined || title === undefined || description === undefined || entryName === undefined) continue;
    const agent: AgentDecl = { id, idSpan: e.keySpan, title, description, entry: entryName, entrySpan: entry(body, 'entry')!.value.span };
    for (const key of ['welcome', 'icons', 'presentation'] as const) {
      const f = entry(body, key);
      if (f) agent[key] = jsonValue(f.value);
    }
    agents.push(agent);
  }
  return agents;
}

/** An array of distinct valid names; a repeated one is refused with `related` → the first. */
function checkNameList(r: Reporter, node: YNode, code: 'BP2021' | 'BP2060', what: string, item: string): NameRef[] {
  const list = expectArray(r, node, code, what);
  if (!list) return [];
  const out: NameRef[] = [];
  const seen = new Map<string, NameRef>();
  for (const n of list.items) {
    const name = expectName(r, n, code, `an item of ${what}`);
    if (name === undefined) continue;
    const first = seen.get(name);
    if (first) {
      r.report(code, n, `Unexpected second ${item} \`${name}\` in ${what}, expected each name once`, {
        hint: 'remove the repeated item',
        related: [r.locate(first.span, `\`${name}\` is first listed here`)],
      });
      continue;
    }
    const ref = { name, span: n.span };
    seen.set(name, ref);
    out.push(ref);
  }
  return out;
}
