/** Runtime limits (CONTRACTS.md, "Runtime limits"); every value is a positive number. */
export interface RuntimeLimits {
  /** Milliseconds one execution may run, its whole tree of calls included. @default 30000 */
  timeoutMs: number;
  /** CPU milliseconds of one code routine invocation. @default 5000 */
  cpuMs: number;
  /** Memory of all the live sandboxes of one execution together, in bytes (docs/runtime-sandbox.md). @default 64 MiB */
  memoryBytes: number;
  /** Canonical JSON bytes of one output (a routine's, a tool's, a model's). @default 16 MiB */
  outputBytes: number;
  /** Calls one allowance admits (tool calls, model decisions, template reads, `next` positions). @default 1000 */
  calls: number;
  /** Steps one allowance admits: `next` transitions and model generation decisions. @default 200 */
  steps: number;
  /** Calls one routine invocation may have in flight at once; more wait for a slot. @default 8 */
  concurrency: number;
}

export const DEFAULT_LIMITS: Readonly<RuntimeLimits> = Object.freeze({
  timeoutMs: 30_000,
  cpuMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  outputBytes: 16 * 1024 * 1024,
  calls: 1_000,
  steps: 200,
  concurrency: 8,
});

export function resolveLimits(given: Partial<RuntimeLimits> | undefined): RuntimeLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(given ?? {})) {
    if (!(key in DEFAULT_LIMITS)) throw new TypeError(`Unexpected limit \`${key}\`, expected one of ${Object.keys(DEFAULT_LIMITS).join(', ')}`);
    if (value === undefined) continue;
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value))
      throw new TypeError(`Unexpected ${String(value)} as limits.${key}, expected a positive number`);
    limits[key as keyof RuntimeLimits] = value;
  }
  return limits;
}
