import type { YNode } from '../source/yaml-tree.js';
import type { RoutineContext } from './context.js';

/** NEXT-1..4 (and PATH-1, PATH-2 for its paths) on the `next` field. */
export function checkNextField(ctx: RoutineContext, node: YNode): void {
  void ctx;
  void node;
}
