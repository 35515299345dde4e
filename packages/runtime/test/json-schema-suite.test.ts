import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireConformance } from '../../../test/support/conformance.js';
import { NativeSchemaError, SchemaValidator, translateNativeSchema } from '../src/index.js';

interface Group {
  description: string;
  schema: unknown;
  tests: { description: string; data: unknown; valid: boolean }[];
}

const suite = requireConformance('json-schema');

/** Annotations a test schema carries that no native source would write. */
function asAuthored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asAuthored);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: [string, unknown][] = [];
  for (const key of Object.keys(schema)) {
    if (key === '$schema' || key === '$comment') continue;
    const value = (schema as Record<string, unknown>)[key];
    // const/enum hold data, not schemas: leave them exactly as they are.
    out.push([key, key === 'const' || key === 'enum' ? value : asAuthored(value)]);
  }
  return Object.fromEntries(out);
}

function fitsNative(schema: unknown): boolean {
  try {
    translateNativeSchema(schema);
    return true;
  } catch (error) {
    if (error instanceof NativeSchemaError) return false;
    throw error;
  }
}

describe.skipIf(suite === undefined)('RUN-2, SCH-11: JSON-Schema-Test-Suite (draft 2020-12), read in place', () => {
  const files =
    suite === undefined
      ? []
      : readdirSync(suite)
          .filter((f) => f.endsWith('.json'))
          .sort();
  const counts = { nativeGroups: 0, nativeTests: 0, documentGroups: 0, documentTests: 0 };
  const validator = new SchemaValidator();

  for (const file of files) {
    const groups = JSON.parse(readFileSync(path.join(suite!, file), 'utf8')) as Group[];
    describe(file, () => {
      for (const group of groups) {
        const authored = asAuthored(group.schema);
        const native = fitsNative(authored);
        const declared = native ? authored : { document: JSON.stringify(group.schema) };
        it(`${native ? 'native' : 'document'}: ${group.description}`, () => {
          if (native) {
            counts.nativeGroups++;
            counts.nativeTests += group.tests.length;
          } else {
            counts.documentGroups++;
            counts.documentTests += group.tests.length;
          }
          for (const test of group.tests) {
            const result = validator.validate(declared, test.data);
            expect(result.ok, `${test.description}: ${JSON.stringify(test.data)}`).toBe(test.valid);
          }
        });
      }
    });
  }

  it('ran every group of the 14 files, through both paths', () => {
    const total = counts.nativeTests + counts.documentTests;
    console.info(
      `JSON-Schema-Test-Suite: ${counts.nativeGroups} groups / ${counts.nativeTests} tests native, ${counts.documentGroups} groups / ${counts.documentTests} tests as documents, ${total} tests in all`,
    );
    expect(files).toHaveLength(14);
    expect(counts.nativeGroups + counts.documentGroups).toBe(101);
    expect(total).toBe(371);
    expect(counts.nativeGroups).toBeGreaterThan(20);
    expect(counts.documentGroups).toBeGreaterThan(20);
  });
});
