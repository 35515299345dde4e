import type { YNode } from '../source/yaml-tree.js';
import type { RoutineContext } from './context.js';

/** TOOL-1..5 on the `tools` field. */
export function checkToolsField(ctx: RoutineContext, node: YNode): void {
  void ctx;
  void node;
}
