import type { YNode } from '../source/yaml-tree.js';
import type { RoutineContext } from './context.js';

/** MDL-1..8 on the `model` field. */
export function checkModelField(ctx: RoutineContext, node: YNode): void {
  void ctx;
  void node;
}
