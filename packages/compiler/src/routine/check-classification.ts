import type { RoutineContext } from './context.js';

/** CLS-1..4, for a routine whose `model.select.operation` is `classification`. */
export function checkClassification(ctx: RoutineContext): void {
  void ctx;
}
