import { describeNode, type YNode } from '../source/yaml-tree.js';
import type { SchemaType } from './keywords.js';

/** How a message names the values of each type. */
export const TYPE_VALUES: Readonly<Record<SchemaType, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: '`true` or `false`',
  null: '`null`',
  array: 'a list',
  object: 'a mapping',
};

/** SCH-8: whether a `const`/`enum` value is a value of the declared type (its root only). */
export function fitsType(node: YNode, type: SchemaType): boolean {
  if (node.kind === 'seq') return type === 'array';
  if (node.kind === 'map') return type === 'object';
  return isOfJsonType(node.value, type);
}

/** Whether a JSON value has a native type (integers are numbers without a fraction). */
export function isOfJsonType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    default:
      return false;
  }
}

export function describeValue(node: YNode): string {
  if (node.kind !== 'scalar') return describeNode(node);
  if (typeof node.value === 'number') return `\`${node.value}\``;
  if (typeof node.value === 'string' && node.value.length <= 40 && !/[`\n]/.test(node.value)) return `string \`${node.value}\``;
  return describeNode(node);
}

export function valueHint(node: YNode, type: SchemaType): string | undefined {
  if (node.kind !== 'scalar') return undefined;
  const v = node.value;
  if (typeof v === 'string' && (type === 'number' || type === 'integer') && v.trim() !== '' && Number.isFinite(Number(v))) return 'write the number unquoted';
  if (typeof v === 'string' && type === 'boolean' && /^(true|false)$/i.test(v)) return 'write it unquoted, in lowercase';
  if (typeof v === 'string' && type === 'null' && v === 'null') return 'write `null` unquoted: the value null, not the string';
  if (type === 'string' && v !== null && typeof v !== 'string') return `quote it to make it a string: \`'${String(v)}'\``;
  return undefined;
}
