import type { Reporter } from '../diagnostics/reporter.js';
import type { YMap, YNode } from '../source/yaml-tree.js';
import { entry } from '../source/yaml-tree.js';

export type SourceKind = 'instructions' | 'model' | 'code';

/** What the field checkers of one routine share. Facts are derived once by `checkRoutine`. */
export interface RoutineContext {
  reporter: Reporter;
  kind: SourceKind;
  frontmatter: YMap;
  /** `port.input` / `port.output` are `true` (only meaningful once PORT-1 passed). */
  port: { input: boolean; output: boolean };
  /** `model.select.operation`, when written. */
  operation: 'generation' | 'classification' | undefined;
  /** `voice`: the audio session profile (MDL-7); `bounded`: an explicit-trigger session (MDL-8). */
  session: 'voice' | 'bounded' | undefined;
}

export function field(ctx: RoutineContext, name: string): YNode | undefined {
  return entry(ctx.frontmatter, name)?.value;
}
