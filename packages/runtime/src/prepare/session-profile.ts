import type { RoutineRef } from '../bundle/routine-table.js';
import { PreparationError } from '../errors.js';
import { isPlainObject } from '../json.js';
import type { ModelBinding, ModelProvider } from '../providers/provider.js';

/**
 * `interaction: session` at preparation (MDL-7, MDL-8): a bounded (explicit-trigger) session
 * needs a provider that opens sessions, and the profile's rejections hold before anything
 * opens: routine ports, structured output, compaction, configure, next, async or output tool
 * connections. Continuous audio sessions (`session.trigger: voice_activity`) are not run by
 * this runtime (docs/runtime.md, "Not yet").
 */
/** MDL-8: what a bounded session's execution depends on; preparation must grant both (RUN-11). */
export const SESSION_CALLS = ['runtime.call.read', 'runtime.call.send'] as const;

export function checkSessionModel(routine: RoutineRef, binding: ModelBinding, provider: ModelProvider | undefined, grants: ReadonlySet<string>): void {
  const select = routine.source.model?.['select'];
  if (!isPlainObject(select) || select['interaction'] !== 'session') return;
  const refuse = (why: string): never => {
    throw new PreparationError('unsupported', `Unexpected session model \`${routine.qualified}\`: ${why}`, routine.qualified);
  };
  const session = select['session'];
  if (isPlainObject(session) && session['trigger'] === 'voice_activity') {
    refuse('continuous audio sessions (`session.trigger: voice_activity`) are not run by this runtime yet; use an explicit-trigger session');
  }
  for (const name of SESSION_CALLS) {
    if (!grants.has(name)) {
      throw new PreparationError(
        'not-granted',
        `Unexpected session model \`${routine.qualified}\` without the grant \`${name}\`, expected it in \`grants\` (a bounded session depends on runtime.call.read and runtime.call.send; they are not offered to the model)`,
        name,
      );
    }
  }
  if (!provider?.session) refuse(`its provider \`${binding.provider}\` opens no model sessions, expected a provider with \`session\``);
  const source = routine.source;
  const rejected: string[] = [];
  if (source.port !== undefined) rejected.push('routine ports');
  if (source.output !== undefined) rejected.push('structured output');
  if (source.compaction !== undefined) rejected.push('`compaction`');
  if (source.configure !== undefined) rejected.push('`configure`');
  if (source.next !== undefined) rejected.push('`next`');
  for (const tool of source.tools ?? []) {
    if (tool.options.async === true) rejected.push(`async tool \`${tool.key}\``);
    if (tool.options.output === true) rejected.push(`output tool \`${tool.key}\``);
  }
  if (rejected.length > 0) refuse(`a bounded session rejects ${rejected.join(', ')} before opening`);
}
