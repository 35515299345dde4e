/**
 * Memory budgets shared by several VMs of one worker (InvokeMessage.budget: the invocations of
 * one execution). Each live VM counts its whole WASM linear memory, which never shrinks; a slice
 * of one VM may allocate only what the others leave (docs/runtime-sandbox.md, "Limits").
 */
import type { QuickJS } from 'quickjs-wasi';

/** The engine's limit is a 32-bit size_t, and 0 would mean no limit at all. */
export const MAX_LIMIT = 2 ** 32 - 1;

export interface BudgetMember {
  /** Bytes of host memory its VM holds. */
  held(): number;
}

/** The live runs of each shared memory budget in this worker. */
const budgets = new Map<number, Set<BudgetMember>>();

/**
 * The linear memory of a fresh VM (about 1.3 MiB with quickjs-wasi 3.7), measured on every VM
 * this worker creates; what a run whose VM is still being created counts for meanwhile.
 */
let freshBytes = 1.5 * 1024 * 1024;

export function freshVmBytes(): number {
  return freshBytes;
}

export function measuredFreshVm(bytes: number): void {
  freshBytes = bytes;
}

export function joinBudget(id: number, member: BudgetMember): Set<BudgetMember> {
  let shared = budgets.get(id);
  if (shared === undefined) budgets.set(id, (shared = new Set()));
  shared.add(member);
  return shared;
}

export function leaveBudget(id: number, shared: Set<BudgetMember>, member: BudgetMember): void {
  shared.delete(member);
  if (shared.size === 0 && budgets.get(id) === shared) budgets.delete(id);
}

/** What the other live VMs of a budget hold. */
export function othersIn(shared: Set<BudgetMember> | undefined, member: BudgetMember): { bytes: number; count: number } {
  let bytes = 0;
  let count = 0;
  if (shared !== undefined) {
    for (const other of shared) {
      if (other === member) continue;
      bytes += other.held();
      count++;
    }
  }
  return { bytes, count };
}

/** quickjs-wasi sets the limit only at creation; its runtime takes a new one at any time (JS_SetMemoryLimit). */
export function setMemoryLimit(vm: QuickJS, bytes: number): void {
  const exports = (vm as unknown as { exports?: { qjs_set_memory_limit?: (limit: number) => void } }).exports;
  if (typeof exports?.qjs_set_memory_limit !== 'function') throw new Error('this quickjs-wasi cannot change a memory limit (qjs_set_memory_limit)');
  exports.qjs_set_memory_limit(Math.min(MAX_LIMIT, Math.max(1, Math.floor(bytes))));
}

/** "another live sandbox of its execution holds" / "3 other live sandboxes of its execution hold". */
export function othersHold(count: number): string {
  return count === 1 ? 'another live sandbox of its execution holds' : `${count} other live sandboxes of its execution hold`;
}
