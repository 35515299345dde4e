import type { CatalogModel, ModelCatalog } from '../routine/model-settings.js';

export interface CatalogTool {
  name: string;
  input?: unknown;
  output?: unknown;
}

/** The receiving build's model and tool catalog (CONTRACTS.md, `--catalog FILE`). */
export interface Catalog extends ModelCatalog {
  tools: CatalogTool[];
}

export type { CatalogModel };

/** Validates a parsed catalog document; returns a message naming the first problem. */
export function parseCatalog(value: unknown): { ok: true; catalog: Catalog } | { ok: false; message: string } {
  if (!isObject(value)) return { ok: false, message: 'Unexpected catalog, expected an object with `models` and `tools`' };
  const models = value.models ?? [];
  const tools = value.tools ?? [];
  if (!Array.isArray(models)) return { ok: false, message: 'Unexpected `models`, expected a list' };
  if (!Array.isArray(tools)) return { ok: false, message: 'Unexpected `tools`, expected a list' };
  for (const [i, m] of models.entries()) {
    if (!isObject(m) || typeof m.id !== 'string' || typeof m.provider !== 'string') {
      return { ok: false, message: `Unexpected models[${i}], expected an object with string \`id\` and \`provider\`` };
    }
  }
  for (const [i, t] of tools.entries()) {
    if (!isObject(t) || typeof t.name !== 'string') return { ok: false, message: `Unexpected tools[${i}], expected an object with a string \`name\`` };
  }
  return { ok: true, catalog: { models: models as CatalogModel[], tools: tools as CatalogTool[] } };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
