import type { Reporter } from '../diagnostics/reporter.js';
import path from 'node:path';
import { closest, quoteList } from '../hints/did-you-mean.js';
import { jsonValue } from '../json/json-value.js';
import { describeNode, entry, type YNode } from '../source/yaml-tree.js';
import { checkDeclaration, checkValue, defineField } from './data-types.js';
import { checkName } from './names.js';
import { expectMap, expectText } from './expect-node.js';
import type { MethodScope } from './scope.js';
import type { CompiledMethod, ConnectionType } from './types.js';

const CONNECTION_TYPES: readonly ConnectionType[] = ['browser', 'service', 'desktop', 'files', 'tool'];

/** MTH-3/MTH-5: `inputs`, each a declaration with an optional default of its type. */
export function checkInputs(r: Reporter, node: YNode, scope: MethodScope): CompiledMethod['inputs'] {
  const inputs: CompiledMethod['inputs'] = {};
  const map = expectMap(r, node, 'BP6005', '`inputs`');
  for (const e of map?.entries ?? []) {
    const named = checkName(r, e.key, e.keySpan, 'input name');
    const type = checkDeclaration(r, e.value, 'inputs', `input \`${e.key}\``, e.keySpan);
    scope.inputs.set(e.key, { type, span: e.keySpan });
    if (!type || !named) continue;
    const def = e.value.kind === 'map' ? entry(e.value, 'default') : undefined;
    if (def && !checkValue(r, def.value, type, `the default of input \`${e.key}\``)) continue;
    defineField(inputs, e.key, def ? { ...type, default: jsonValue(def.value) } : type);
  }
  return inputs;
}

/** MTH-3/MTH-5: `state`, each a declaration with a `file` inside the data folder. */
export function checkState(r: Reporter, node: YNode, scope: MethodScope): CompiledMethod['state'] {
  const state: CompiledMethod['state'] = {};
  const map = expectMap(r, node, 'BP6005', '`state`');
  const files = new Map<string, { span: YNode['span']; name: string }>();
  for (const e of map?.entries ?? []) {
    const named = checkName(r, e.key, e.keySpan, 'state name');
    const type = checkDeclaration(r, e.value, 'state', `state \`${e.key}\``, e.keySpan);
    scope.state.set(e.key, { type, span: e.keySpan });
    if (e.value.kind !== 'map') continue;
    const fileEntry = entry(e.value, 'file');
    let file: string | undefined;
    if (!fileEntry) {
      r.report('BP6041', e.keySpan, `Unexpected state \`${e.key}\` without \`file\`, expected a path relative to the method's data folder`, {
        hint: `add \`file: ${e.key}.json\``,
      });
    } else {
      file = stateFile(r, fileEntry.value, e.key);
      const first = file === undefined ? undefined : files.get(file);
      if (first) {
        r.report('BP6042', fileEntry.value, `Unexpected \`file: ${file}\` for state \`${e.key}\`, expected a file no other state uses`, {
          related: [r.locate(first.span, `state \`${first.name}\` uses it`)],
        });
        file = undefined;
      } else if (file !== undefined) files.set(file, { span: fileEntry.value.span, name: e.key });
    }
    if (!type || !named || file === undefined) continue;
    const def = entry(e.value, 'default');
    if (def && !checkValue(r, def.value, type, `the default of state \`${e.key}\``)) continue;
    defineField(state, e.key, { ...type, file, ...(def ? { default: jsonValue(def.value) } : {}) });
  }
  return state;
}

function stateFile(r: Reporter, node: YNode, name: string): string | undefined {
  const value = expectText(r, node, 'BP6042', `the file of state \`${name}\``);
  if (value === undefined) return undefined;
  const refuse = (problem: string, hint?: string): undefined => {
    r.report('BP6042', node, `Unexpected ${problem} for the file of state \`${name}\`, expected a path relative to the method's data folder`, { hint });
    return undefined;
  };
  if (value.includes('\0')) return refuse('a NUL character');
  if (value.includes('\\')) return refuse(`\`\\\` in \`${value}\``, `write \`${value.replace(/\\/g, '/')}\`: paths use \`/\` on every system`);
  if (value.startsWith('/') || /^[A-Za-z]:/.test(value))
    return refuse(`absolute path \`${value}\``, 'local paths belong to the run configuration; name the file inside the data folder');
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(value)) return refuse(`URL \`${value}\``);
  const normalized = path.posix.normalize(value);
  if (normalized === '..' || normalized.startsWith('../'))
    return refuse(`path \`${value}\` leaving the data folder`, "state stays inside the method's data folder");
  if (normalized === '.' || normalized === './' || normalized.endsWith('/')) return refuse(`folder \`${value}\``, `name a file, such as \`${name}.json\``);
  return normalized;
}

/** MTH-14: connection name → {type, description}. */
export function checkEnvironment(r: Reporter, node: YNode, scope: MethodScope): CompiledMethod['environment'] {
  const environment: CompiledMethod['environment'] = {};
  const map = expectMap(r, node, 'BP6005', '`environment`');
  for (const e of map?.entries ?? []) {
    const named = checkName(r, e.key, e.keySpan, 'connection name');
    const what = `connection \`${e.key}\``;
    const connection = expectMap(r, e.value, 'BP6130', what, 'write `{type: service, description: …}`');
    let type: ConnectionType | undefined;
    let description: string | undefined;
    if (connection) {
      for (const k of connection.entries) {
        if (k.key === 'type' || k.key === 'description') continue;
        const guess = closest(k.key, ['type', 'description']);
        r.report('BP6130', k.keySpan, `Unexpected \`${k.key}\` in ${what}, expected \`type\` and \`description\``, {
          hint: guess
            ? `did you mean \`${guess}\`?`
            : 'paths, accounts and credentials belong to the run configuration; describe the required access in `description`',
        });
      }
      const typeEntry = entry(connection, 'type');
      const descriptionEntry = entry(connection, 'description');
      if (!typeEntry || !descriptionEntry) {
        r.report('BP6130', e.keySpan, `Unexpected ${what} without \`${typeEntry ? 'description' : 'type'}\`, expected \`type\` and \`description\``, {
          hint: typeEntry
            ? 'describe the required access in plain English, including the service and account when relevant'
            : `\`type\` is one of ${quoteList(CONNECTION_TYPES)}`,
        });
      }
      if (typeEntry) type = connectionType(r, typeEntry.value, what);
      if (descriptionEntry) description = expectText(r, descriptionEntry.value, 'BP6130', `the description of ${what}`);
    }
    scope.environment.set(e.key, { type, span: e.keySpan });
    if (named && type !== undefined && description !== undefined) defineField(environment, e.key, { type, description });
  }
  return environment;
}

function connectionType(r: Reporter, node: YNode, what: string): ConnectionType | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'string' && (CONNECTION_TYPES as readonly string[]).includes(node.value))
    return node.value as ConnectionType;
  const written = node.kind === 'scalar' && typeof node.value === 'string' ? `type \`${node.value}\`` : describeNode(node);
  const guess = node.kind === 'scalar' && typeof node.value === 'string' ? closest(node.value, CONNECTION_TYPES) : undefined;
  r.report('BP6131', node, `Unexpected ${written} for ${what}, expected one of ${quoteList(CONNECTION_TYPES)}`, {
    hint: guess
      ? `did you mean \`${guess}\`?`
      : '`service` for an API or account, `browser` for web pages, `desktop` for applications, `files` for a folder, `tool` for a command',
  });
  return undefined;
}
