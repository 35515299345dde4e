import type { YNode } from '../source/yaml-tree.js';
import type { RoutineContext } from './context.js';

/** PORT-1 on the `port` field. */
export function checkPortField(ctx: RoutineContext, node: YNode): void {
  void ctx;
  void node;
}
