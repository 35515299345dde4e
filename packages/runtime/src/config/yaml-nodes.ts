import { isAlias, isMap, isScalar, isSeq, type LineCounter, type Node as YamlNode, type Pair } from 'yaml';

/** The first problem of a runtime.yaml: where it is and what is wrong. */
export class ConfigRefusal extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** Reads typed values out of YAML nodes, refusing (with the node's offset) anything else. */
export class NodeReader {
  constructor(readonly lines: LineCounter) {}

  /** A value's offset; an empty value (`key:` and nothing) is shown at its key. */
  offset(node: YamlNode | null | undefined, fallback: number): number {
    return node?.range && !(isScalar(node) && node.value === null) ? node.range[0] : fallback;
  }

  /** The pairs of a mapping, each with its key as a string. */
  entries(node: YamlNode | null, at: number, what: string, expected: string): { key: string; value: YamlNode | null; keyAt: number }[] {
    if (!isMap(node)) throw new ConfigRefusal(this.offset(node, at), `Unexpected ${describe(node)} as ${what}, expected ${expected}`);
    return node.items.map((pair: Pair) => {
      const key = pair.key as YamlNode | null;
      const value = pair.value as YamlNode | null;
      const keyAt = key?.range?.[0] ?? value?.range?.[0] ?? at;
      if (!isScalar(key) || typeof key.value !== 'string') throw new ConfigRefusal(keyAt, `Unexpected key ${describe(key)} in ${what}, expected a name`);
      return { key: key.value, value, keyAt };
    });
  }

  string(node: YamlNode | null, at: number, what: string, pattern?: RegExp, expected = 'a string'): string {
    if (!isScalar(node) || typeof node.value !== 'string' || node.value === '' || (pattern && !pattern.test(node.value))) {
      throw new ConfigRefusal(this.offset(node, at), `Unexpected ${describe(node)} as ${what}, expected ${expected}`);
    }
    return node.value;
  }

  integer(node: YamlNode | null, at: number, what: string, min: number, unit: string): number {
    if (!isScalar(node) || typeof node.value !== 'number' || !Number.isSafeInteger(node.value) || node.value < min) {
      throw new ConfigRefusal(
        this.offset(node, at),
        `Unexpected ${describe(node)} as ${what}, expected ${min === 1 ? 'a positive' : 'a nonnegative'} integer (${unit})`,
      );
    }
    return node.value;
  }

  strings(node: YamlNode | null, at: number, what: string, allowed?: readonly string[]): string[] {
    const expected = allowed ? `a list of ${allowed.join(', ')}` : 'a list of strings';
    if (!isSeq(node)) throw new ConfigRefusal(this.offset(node, at), `Unexpected ${describe(node)} as ${what}, expected ${expected}`);
    const out: string[] = [];
    for (const item of node.items as (YamlNode | null)[]) {
      const value = this.string(item, this.offset(node, at), `an item of ${what}`, undefined, allowed ? `one of ${allowed.join(', ')}` : 'a string');
      if (allowed && !allowed.includes(value))
        throw new ConfigRefusal(this.offset(item, at), `Unexpected ${JSON.stringify(value)} in ${what}, expected one of ${allowed.join(', ')}`);
      if (out.includes(value))
        throw new ConfigRefusal(this.offset(item, at), `Unexpected duplicate ${JSON.stringify(value)} in ${what}, expected distinct values`);
      out.push(value);
    }
    return out;
  }

  /** Plain JSON data (claims, a settings schema): no aliases, no tags beyond the core schema. */
  json(node: YamlNode | null, at: number, what: string): unknown {
    if (isAlias(node)) throw new ConfigRefusal(this.offset(node, at), `Unexpected alias in ${what}, expected plain data`);
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const { key, value, keyAt } of this.entries(node, at, what, 'a mapping')) {
        Object.defineProperty(out, key, { value: this.json(value, keyAt, `${what}.${key}`), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    if (isSeq(node)) return (node.items as (YamlNode | null)[]).map((item) => this.json(item, this.offset(node, at), what));
    if (node === null) return null;
    if (isScalar(node)) {
      if (typeof node.value === 'number' && !Number.isFinite(node.value))
        throw new ConfigRefusal(this.offset(node, at), `Unexpected ${String(node.value)} in ${what}, expected a JSON number`);
      return node.value;
    }
    throw new ConfigRefusal(at, `Unexpected value in ${what}, expected plain data`);
  }
}

export function describe(node: YamlNode | null | undefined): string {
  if (node === null || node === undefined || (isScalar(node) && node.value === null)) return 'empty value';
  if (isMap(node)) return 'mapping';
  if (isSeq(node)) return 'list';
  if (isAlias(node)) return 'alias';
  if (isScalar(node)) return typeof node.value === 'string' ? JSON.stringify(node.value) : String(node.value);
  return 'value';
}
