import { isPlainObject } from '../json.js';

export const REDACTED = '[redacted]';

/**
 * Replaces every occurrence of a secret (the value of an env placeholder marked secret, a
 * provider key) inside any string of a value, keys included, before it reaches a journal.
 * Longer secrets go first so one that contains another is redacted whole.
 */
export class Redactor {
  private readonly secrets: string[];

  constructor(secrets: Iterable<string>) {
    this.secrets = [...new Set([...secrets].filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
  }

  get empty(): boolean {
    return this.secrets.length === 0;
  }

  redact<T>(value: T): T {
    return this.empty ? value : (this.walk(value) as T);
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (isPlainObject(value)) return Object.fromEntries(Object.keys(value).map((k) => [this.text(k), this.walk(value[k])]));
    return value;
  }
}
