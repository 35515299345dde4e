/** What the pool checks of an invocation and of every value before it crosses into a worker. */
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.js';
import type { InvokeMessage } from './protocol.js';
import type { SandboxErrorCode, SandboxInvocation, SandboxResult } from './types.js';

export function fail(code: SandboxErrorCode, message: string): SandboxResult {
  return { ok: false, error: { code, message } };
}

/** JSON text of a host value for the guest, or a failure when it has none. */
export function toJsonText(value: unknown): { ok: true; text: string | undefined } | { ok: false; code: string; message: string } {
  if (value === undefined) return { ok: true, text: undefined };
  try {
    const text: unknown = JSON.stringify(value);
    if (typeof text === 'string' && !jsonDepthExceeds(text)) return { ok: true, text };
  } catch {
    // fall through: cycles and BigInts are not JSON either
  }
  return { ok: false, code: 'not-json', message: `the value is not JSON (or nests deeper than ${MAX_JSON_DEPTH} levels)` };
}

export function checkInvocation(inv: SandboxInvocation): SandboxResult | undefined {
  const paths = new Set<string>();
  for (const m of inv.modules) {
    if (typeof m.path !== 'string' || typeof m.source !== 'string') return fail('load', 'every module needs a path and a source');
    if (paths.has(m.path)) return fail('load', `module '${m.path}' is given twice`);
    paths.add(m.path);
  }
  if (!paths.has(inv.entry)) return fail('load', `the entry '${inv.entry}' is not one of the modules`);
  for (const key of ['cpuMs', 'memoryBytes', 'timeoutMs', 'outputBytes'] as const) {
    const v = inv.limits[key];
    if (typeof v !== 'number' || !(v > 0)) return fail('internal', `limits.${key} must be a positive number`);
  }
  if (!Number.isFinite(inv.clock.epochMs)) return fail('internal', 'clock.epochMs must be a finite number');
  if (typeof inv.seed !== 'number' || Number.isNaN(inv.seed)) return fail('internal', 'seed must be a number');
  if (inv.memoryBudget !== undefined && typeof inv.memoryBudget !== 'string') return fail('internal', 'memoryBudget must be a string');
  if (!inv.tools.every((t) => typeof t === 'string')) return fail('internal', 'tools must be strings');
  return undefined;
}

/** The worker's copy of a checked invocation: plain data only, the input as JSON text. */
export function toInvokeMessage(invocation: SandboxInvocation, id: number, input: string | undefined, budget: number): InvokeMessage {
  return {
    t: 'invoke',
    id,
    modules: invocation.modules.map((m) => ({ path: m.path, source: m.source })),
    entry: invocation.entry,
    input,
    tools: [...new Set(invocation.tools)],
    catalog: invocation.context.catalog === true,
    outcome: invocation.context.outcome === true,
    ports: { input: invocation.context.ports.input === true, output: invocation.context.ports.output === true },
    epochMs: invocation.clock.epochMs,
    seed: invocation.seed,
    limits: {
      cpuMs: invocation.limits.cpuMs,
      memoryBytes: invocation.limits.memoryBytes,
      timeoutMs: invocation.limits.timeoutMs,
      outputBytes: invocation.limits.outputBytes,
    },
    budget,
  };
}
