import { COMPACTION_KEYS, CONFIGURE_KEYS, PERMISSION_SELECTIONS, ROUTE_KEYS } from '../routine/check-misc.js';
import { NEXT_KEYS } from '../routine/check-next.js';
import { LIMIT_KEYS as PORT_LIMIT_KEYS, PORT_KEYS } from '../routine/check-port.js';
import { LIMIT_KEYS as TOOL_LIMIT_KEYS, OPTION_KEYS, PRESENTATION_KEYS, WHEN } from '../routine/check-tools.js';
import { INTERACTIONS, OPERATIONS, SELECT_KEYS } from '../routine/model-select.js';
import { STRUCTURE } from '../routine/model-settings.js';
import { SCHEMA_TYPES } from '../schema/keywords.js';

/**
 * The keys each nested frontmatter mapping accepts, by dotted path (`*` is one `tools`
 * entry's name), from the checkers' own tables: what an editor completes below a key.
 * `model` lists only its structure: every other key is a model setting.
 */
export const NESTED_KEYS: Readonly<Record<string, readonly string[]>> = {
  model: STRUCTURE,
  'model.select': SELECT_KEYS,
  'model.select.context_length': ['minimum'],
  'model.select.session': ['trigger'],
  port: PORT_KEYS,
  'port.limits': PORT_LIMIT_KEYS,
  compaction: COMPACTION_KEYS,
  configure: CONFIGURE_KEYS,
  route: ROUTE_KEYS,
  next: NEXT_KEYS,
  'tools.*': OPTION_KEYS,
  'tools.*.limits': TOOL_LIMIT_KEYS,
  'tools.*.presentation': PRESENTATION_KEYS,
};

/** Closed sets of scalar values, by dotted path. */
export const FIELD_VALUES: Readonly<Record<string, readonly (string | boolean)[]>> = {
  visibility: ['public', 'private'],
  language: ['javascript'],
  catalog: [true, false],
  permissions: PERMISSION_SELECTIONS,
  'model.select.operation': OPERATIONS,
  'model.select.interaction': INTERACTIONS,
  'model.select.session.trigger': ['voice_activity'],
  'port.input': [true, false],
  'port.output': [true, false],
  'next.output': [true, false],
  'tools.*.async': [true, false],
  'tools.*.output': [true, false],
  'tools.*.presentation.when': WHEN,
};

export const SCHEMA_TYPE_VALUES: readonly string[] = SCHEMA_TYPES;

/** Where a routine name is written in the frontmatter (REF-1), by dotted path; `tools` and `next` hold it directly too. */
export const NAME_VALUE_PATHS: readonly string[] = ['tools', 'next', 'next.to', 'next.cases.*', 'configure.routine', 'route.routine', 'compaction.summary'];
