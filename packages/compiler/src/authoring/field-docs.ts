/**
 * What each frontmatter and manifest key means, in the words of the specification
 * (spec/berry-native-authoring.md), for editors: the JSON Schemas' `description`s and the
 * language server's completion and hover. Keys are dotted paths (`model.select.operation`).
 */
export const ROUTINE_FIELD_DOCS: Readonly<Record<string, string>> = {
  name: 'The full logical identity, including any explicit namespace, e.g. `patterns.react`. 1-128 letters, digits, `_`, `.` or `-`; `env.` is reserved. Directories never assign names.',
  title: 'Optional nonempty callable label of at most 256 characters.',
  description: 'Required. Describes the technical routine or reusable instructions (public agent identity belongs in plugin.json).',
  visibility: '`public` or `private`. Default: `public` for agent entries and exports, `private` otherwise.',
  input:
    'The input schema. All schemas are objects: the native profile (`type`, `properties`, …) or an independent JSON Schema as `{document: JSON-text, type?: root-type}`. An omitted input permits no argument or any JSON value; `input: {}` requires a JSON argument.',
  output: 'The output schema, in the native profile or as `{document, type?}`. A classification output holds judgments only, inside a closed required object.',
  model:
    'Makes this a model routine. Use either `model.select` or `model.provider` plus `model.id`, never both. Model settings such as `max_output_tokens` and `effort` belong inside `model`, beside `select`.',
  'model.select':
    'Requirements binding matches against configured models. Accepts only: operation, interaction, input_modalities, output_modalities, supported_parameters, tool_choice, context_length, session, funding.',
  'model.select.operation': 'Required: `generation` or `classification`.',
  'model.select.interaction': 'Optional: `request`, `stream` or `session`.',
  'model.select.context_length': 'A required context window, as a lower bound only: `minimum: N`.',
  'model.select.session': 'Only for continuous audio: `{trigger: voice_activity}`; this profile requires both routine ports.',
  'model.provider': 'Names a catalog model, together with `model.id`.',
  'model.id': 'Names a catalog model, together with `model.provider`.',
  configure: '`{routine, fields}`: a routine called before each generation decision; `fields` name the model settings it sets.',
  route: '`{routine}`: a routine that decides, before a turn, whether messages go to this model or to a new thread.',
  tools:
    'An array of distinct target names or singleton mappings from a name to options (`async`, `output`, `limits`, `presentation`). Omitted tools and `tools: []` offer none.',
  permissions:
    '`[exact_tool_id, ...]` selects optional external Tools for this routine and all work it delegates; `[]` removes optional Tool access; `catalogs` or `tools` select installed suppliers.',
  compaction: '`{max_tokens, keep_turns, summary?}`: past `max_tokens`, the turns before the last `keep_turns` are summarized by the `summary` routine.',
  port: 'Has exactly `input`, `limits`, `output`. input/output are booleans with at least one true. limits has exactly bytes, messages, pending, all positive safe integers.',
  next: 'The successor: a target name, `{to: name}`, or `{select: path, cases: {label: name}}`, plus `input` (an expression building its argument) and `output`.',
  language: '`javascript`: makes this a code routine. Code bodies are raw ECMAScript 2023 modules with a default function export.',
  catalog: "`true`: this code routine receives `context.catalog()`, its invocation's offered Tool definitions. Grants no permissions.",
};

export const MANIFEST_FIELD_DOCS: Readonly<Record<string, string>> = {
  $schema: 'Agent Plugins 1.0.0: `https://agent-plugins.org/schemas/1.0.0/plugin.schema.json`.',
  name: 'The package name: lowercase letters, digits, hyphens and periods.',
  version: 'The manifest format version: `"1"`.',
  extensions: 'Berry declarations go in `extensions["ai.strawberry.berry"]`.',
  agents: 'Names public agents with title, description and entry (a local callable export). Libraries omit agents.',
  exports: 'Names of reusable public definitions (a library declares exports).',
  sources: 'Directory containing the routines, relative to the manifest. Omit to use the manifest directory.',
  imports: 'A list of `{name, manifest, export}`, `{name, bundle, export}` or `{name, root, export}`: exactly one of manifest, bundle or root.',
  resources: '`{uri, mimeType, path}` records capturing exact file bytes. Paths are relative to the manifest.',
  interfaces: 'Existing InterfaceOffer records.',
  requires: 'External tool names, for composition.',
  runtime: 'A native runtime, captured as data.',
};
