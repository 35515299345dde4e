import { failure } from '../errors.js';
import { isPlainObject } from '../json.js';
import { READERS, type ExternalTool } from '../execution/external-tool.js';
import type { SessionStore } from './store.js';

/**
 * The built-in session readers a runtime with a session store supplies: `runtime.session.read`
 * returns the execution's own session (`{id, thread, opening, threads}`), and
 * `runtime.session.state.read` with `{key}` returns that State key's `{value, version}`.
 * Neither can name another session: the execution id selects it.
 */
export function sessionReaders(store: SessionStore): [string, ExternalTool][] {
  return [
    [READERS.session, { description: "Reads this execution's session.", invoke: (_input, context) => store.read(context.executionId) }],
    [
      READERS.state,
      {
        description: "Reads one versioned State key of this execution's session.",
        invoke: (input, context) => {
          const key = isPlainObject(input) && typeof input['key'] === 'string' ? input['key'] : undefined;
          if (key === undefined) throw failure('invalid-input', 'Unexpected session State read without a `key`');
          return store.readState(context.executionId, key);
        },
      },
    ],
  ];
}
