import type { YNode } from '../source/yaml-tree.js';
import type { RoutineContext } from '../routine/context.js';

/** SCH-1..10 on `input` or `output`. */
export function checkSchemaField(ctx: RoutineContext, node: YNode, field: 'input' | 'output'): void {
  void ctx;
  void node;
  void field;
}
