import type { SourceKind } from './context.js';

/** Field inventories of the three kinds (KIND-2, KIND-3, KIND-4), in the spec's order. */
export const FIELDS: Readonly<Record<SourceKind, readonly string[]>> = {
  instructions: ['name', 'title', 'description', 'tools'],
  model: ['name', 'title', 'visibility', 'description', 'input', 'output', 'model', 'configure', 'route', 'tools', 'permissions', 'compaction', 'port', 'next'],
  code: ['name', 'title', 'visibility', 'description', 'input', 'output', 'language', 'tools', 'permissions', 'port', 'next', 'catalog'],
};

export const ALL_FIELDS: readonly string[] = [...new Set(Object.values(FIELDS).flat())];

/** Where a misplaced top-level key belongs, for SRC-3 hints. */
export const TOP_LEVEL_HOMES: Readonly<Record<string, string>> = {
  max_output_tokens: '`model`',
  effort: '`model`',
  temperature: '`model`',
  top_p: '`model`',
  reasoning: '`model`',
  settings: '`model` (settings go directly inside `model`, not under `settings`)',
  select: '`model`',
  provider: '`model`',
  id: '`model`',
  operation: '`model.select`',
  interaction: '`model.select`',
  properties: '`input` or `output`',
  required: '`input` or `output`',
  additionalProperties: '`input` or `output`',
  items: '`input` or `output`',
  type: '`input` or `output`',
  enum: '`input` or `output`',
  const: '`input` or `output`',
  oneOf: '`input` or `output`',
  minimum: '`input` or `output`',
  maximum: '`input` or `output`',
  limits: '`port` or a `tools` entry',
  cases: '`next`',
  to: '`next`',
  max_tokens: '`compaction`',
  keep_turns: '`compaction`',
};
