/**
 * What the sandbox tests need of a WorkerPool beyond its public `Sandbox` interface, read from the
 * outside so that src/ carries no test hooks: the pool's private fields are reached by element
 * access, which TypeScript type-checks against the class.
 */
import type { WorkerPool } from '../../src/sandbox/pool.js';

/** Stops one of the pool's worker threads from outside, as a crash of the thread would. */
export async function stopWorker(pool: WorkerPool, index: number): Promise<void> {
  await pool['slots'][index]?.worker.terminate();
}

/** What the pool still tracks, to check that nothing outlives its invocations. */
export function liveInPool(pool: WorkerPool): { invocations: number; budgets: number } {
  let invocations = 0;
  for (const slot of pool['slots']) invocations += slot?.active.size ?? 0;
  return { invocations, budgets: pool['budgets'].size };
}
