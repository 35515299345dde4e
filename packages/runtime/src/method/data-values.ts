import { canonicalJson } from '@berrypack/compiler/bundle';
import { isPlainObject } from '../json.js';
import { elementType, type DataType } from '@berrypack/compiler/method-types';
import type { FileValue } from './run-record.js';

/**
 * Where a value departs from its declared type (MTH-3: all declared fields are required,
 * extra fields fail; no coercion), or undefined when it fits. `file` decides what stands for
 * a file: a saved `FileValue` once recorded, the content an executor returns before saving.
 */
export function typeProblem(type: DataType, value: unknown, where: string, file: (value: unknown) => boolean = isFileValue): string | undefined {
  switch (type.type) {
    case 'text':
      return typeof value === 'string' ? undefined : `${where} must be text, not ${describe(value)}`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : `${where} must be a number, not ${describe(value)}`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${where} must be true or false, not ${describe(value)}`;
    case 'file':
      return file(value) ? undefined : `${where} must be a file (its text, or {"base64": …}), not ${describe(value)}`;
    case 'record':
      return recordProblem(type.fields, value, where, file);
    case 'list': {
      if (!Array.isArray(value)) return `${where} must be a list, not ${describe(value)}`;
      const element = elementType(type);
      for (let i = 0; i < value.length; i++) {
        const problem = typeProblem(element, value[i], `${where}[${i}]`, file);
        if (problem) return problem;
      }
      return undefined;
    }
  }
}

/** A record of exactly these fields: each required, no others. */
export function recordProblem(
  fields: Record<string, DataType>,
  value: unknown,
  where: string,
  file: (value: unknown) => boolean = isFileValue,
): string | undefined {
  if (!isPlainObject(value)) return `${where} must be a record, not ${describe(value)}`;
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(fields, key)) return `${where} has the field \`${key}\`, which is not declared (declared: ${list(Object.keys(fields))})`;
  }
  for (const [name, fieldType] of Object.entries(fields)) {
    if (!Object.hasOwn(value, name)) return `${where} lacks the field \`${name}\` (all declared fields are required)`;
    const problem = typeProblem(fieldType, value[name], `${where}.${name}`, file);
    if (problem) return problem;
  }
  return undefined;
}

/** File content as an executor or a person returns it: its text, or `{"base64": …}` for bytes. */
export function isFileContent(value: unknown): value is string | { base64: string } {
  return typeof value === 'string' || (isPlainObject(value) && Object.keys(value).length === 1 && typeof value['base64'] === 'string');
}

export function isFileValue(value: unknown): value is FileValue {
  return isPlainObject(value) && typeof value['path'] === 'string' && typeof value['sha256'] === 'string' && typeof value['size'] === 'number';
}

/** JSON Schema 2020-12 of a declared type, for providers' structured output; files are their text. */
export function jsonSchemaOf(type: DataType): Record<string, unknown> {
  const base = type.description === undefined ? {} : { description: type.description };
  switch (type.type) {
    case 'text':
    case 'file':
      return { type: 'string', ...base };
    case 'number':
      return { type: 'number', ...base };
    case 'boolean':
      return { type: 'boolean', ...base };
    case 'record':
      return { ...recordSchema(type.fields), ...base };
    case 'list':
      return { type: 'array', items: jsonSchemaOf(elementType(type)), ...base };
  }
}

export function recordSchema(fields: Record<string, DataType>, optional: Record<string, unknown> = {}): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(fields)) properties[name] = jsonSchemaOf(type);
  return { type: 'object', properties: { ...properties, ...optional }, required: Object.keys(fields), additionalProperties: false };
}

export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a record';
  if (typeof value === 'string') return 'text';
  return `${typeof value} ${String(value)}`;
}

export function list(names: readonly string[]): string {
  return names.length === 0 ? '(none)' : names.map((n) => `\`${n}\``).join(', ');
}

/** A short rendering of a value for a reason text. */
export function preview(value: unknown, max = 120): string {
  let text: string;
  try {
    text = value === undefined ? 'nothing' : canonicalJson(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
