/**
 * The host's side of the guest bridge: a worker's requests for one invocation (tool calls,
 * context operations) answered through its SandboxHost, and its raw result turned into a
 * SandboxResult. Every value is checked here, whatever the guest's runner claimed.
 */
import { fail, toJsonText } from './check-invocation.js';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from './json-depth.js';
import type { GuestOp, RawResult, Settlement, ToWorker } from './protocol.js';
import { locateImport, mapStack } from './source-map.js';
import type { SandboxAdmission, SandboxError, SandboxHost, SandboxInvocation, SandboxResult } from './types.js';

/** One live invocation as the bridge sees it; `reply` posts to its worker unless it has ended. */
export interface BridgeCall {
  id: number;
  invocation: SandboxInvocation;
  host: SandboxHost;
  tools: Set<string>;
  reply(message: ToWorker): void;
}

/** What a host tool failure looks like to the guest: a code and a message, nothing else of the host's. */
function hostFailure(e: unknown, fallback: string): { code: string; message: string } {
  if (e !== null && typeof e === 'object') {
    const r = e as { code?: unknown; message?: unknown };
    return {
      code: typeof r.code === 'string' ? r.code : 'failed',
      message: typeof r.message === 'string' ? r.message : fallback,
    };
  }
  return { code: 'failed', message: typeof e === 'string' ? e : fallback };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/** A host value as the guest receives it: JSON text, or a failure when it is not JSON. */
function settlement(value: unknown): Settlement {
  const json = toJsonText(value);
  return json.ok ? { ok: true, value: json.text } : { ok: false, code: json.code, message: `the result is not JSON` };
}

function settle(call: BridgeCall, seq: number, value: unknown): void {
  call.reply({ t: 'settle', id: call.id, seq, ...settlement(value) });
}

/**
 * A tool call of the guest: admitted (or refused) first, its outcome settled later. An outcome
 * that settles before the host's next turn (a tool that answers at once) travels with its
 * admission in one message; otherwise the admission goes on that turn, not held for the outcome.
 */
export function answerCall(call: BridgeCall, seq: number, name: string, input: string | undefined): void {
  const id = call.id;
  const refuse = (code: string, message: string) => call.reply({ t: 'admit', id, seq, ok: false, code, message });
  if (!call.tools.has(name)) return refuse('unknown-tool', `'${name}' is not a tool of this routine`);
  const limit = call.invocation.limits.outputBytes;
  if (input !== undefined && Buffer.byteLength(input, 'utf8') > limit) {
    return refuse('output-too-large', `the input of '${name}' is larger than the limit of ${limit} bytes`);
  }
  if (input !== undefined && jsonDepthExceeds(input)) return refuse('not-json', `the input of '${name}' nests deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = input === undefined ? undefined : JSON.parse(input);
  } catch {
    return refuse('not-json', `the input of '${name}' is not JSON`);
  }
  const admit = (admitted: SandboxAdmission): void => {
    if (admitted === null || typeof admitted !== 'object') {
      refuse('internal', `the call of '${name}' was admitted without a receipt`);
      return;
    }
    const receipt = {
      callId: String(admitted.callId),
      executionId: admitted.executionId === null || admitted.executionId === undefined ? null : String(admitted.executionId),
    };
    let admitSent = false;
    const admitNow = setImmediate(() => {
      admitSent = true;
      call.reply({ t: 'admit', id, seq, ok: true, ...receipt });
    });
    const answer = (settled: Settlement): void => {
      if (admitSent) return call.reply({ t: 'settle', id, seq, ...settled });
      clearImmediate(admitNow);
      call.reply({ t: 'answer', id, seq, ...receipt, ...settled });
    };
    // Observed at once, so a failure that comes before the guest awaits it is handled.
    Promise.resolve(admitted.outcome).then(
      (out) => answer(settlement(out)),
      (e: unknown) => answer({ ok: false, ...hostFailure(e, `the call of '${name}' failed`) }),
    );
  };
  const notAdmitted = (e: unknown): void => {
    const f = hostFailure(e, `the call of '${name}' was not admitted`);
    refuse(f.code, f.message);
  };
  let admission: ReturnType<SandboxHost['callTool']>;
  try {
    admission = call.host.callTool(name, value);
  } catch (e) {
    return notAdmitted(e);
  }
  if (isThenable(admission)) Promise.resolve(admission).then(admit, notAdmitted);
  else admit(admission);
}

/** A context operation of the guest (catalog, outcome, receive, emit), if the routine has it. */
export function answerOp(call: BridgeCall, seq: number, op: GuestOp, value: string | undefined, kind: string | undefined, answers: string | undefined): void {
  const { host, invocation } = call;
  const refuse = (code: string, message: string) => call.reply({ t: 'settle', id: call.id, seq, ok: false, code, message });
  let pending: Promise<unknown>;
  try {
    if (op === 'catalog') {
      if (!invocation.context.catalog || host.catalog === undefined) return refuse('unavailable', 'context.catalog is not available to this routine');
      pending = Promise.resolve(host.catalog());
    } else if (op === 'outcome') {
      if (invocation.context.outcome !== true || host.outcome === undefined || value === undefined)
        return refuse('unavailable', 'context.outcome is not available to this routine');
      pending = Promise.resolve(host.outcome(value));
    } else if (op === 'receive') {
      if (!invocation.context.ports.input || host.receive === undefined) return refuse('unavailable', 'context.receive is not available to this routine');
      pending = Promise.resolve(host.receive());
    } else {
      if (!invocation.context.ports.output || host.emit === undefined) return refuse('unavailable', 'context.emit is not available to this routine');
      const limit = invocation.limits.outputBytes;
      if (value === undefined) return refuse('not-json', 'context.emit needs a JSON value');
      if (Buffer.byteLength(value, 'utf8') > limit) return refuse('output-too-large', `the emitted value is larger than the limit of ${limit} bytes`);
      if (jsonDepthExceeds(value)) return refuse('not-json', `the emitted value nests deeper than ${MAX_JSON_DEPTH} levels`);
      const parsed: unknown = JSON.parse(value);
      pending = Promise.resolve(
        answers !== undefined ? host.emit(parsed, kind, answers) : kind !== undefined ? host.emit(parsed, kind) : host.emit(parsed),
      ).then(() => undefined);
    }
  } catch (e) {
    pending = Promise.reject(e);
  }
  pending.then(
    (out) => settle(call, seq, out),
    (e: unknown) => {
      const f = hostFailure(e, `context.${op} failed`);
      refuse(f.code, f.message);
    },
  );
}

/** A worker's raw result as the SandboxResult the host sees: output parsed, errors mapped to the `.md` lines. */
export function toSandboxResult(invocation: SandboxInvocation, raw: RawResult): SandboxResult {
  if (raw.ok) {
    if (jsonDepthExceeds(raw.output)) return fail('not-json', `output nests deeper than ${MAX_JSON_DEPTH} levels`);
    try {
      return { ok: true, output: JSON.parse(raw.output) as unknown };
    } catch {
      return fail('not-json', 'output is not JSON');
    }
  }
  const error: SandboxError = { code: raw.code, message: raw.message };
  if (raw.stack !== undefined) {
    const mapped = mapStack(raw.stack, invocation.modules);
    if (mapped.location !== undefined) error.location = mapped.location;
    if (mapped.stack !== undefined) error.stack = mapped.stack;
  } else if (raw.importer !== undefined && raw.specifier !== undefined) {
    const location = locateImport(invocation.modules, raw.importer, raw.specifier);
    if (location !== undefined) error.location = location;
  }
  if (raw.guestCode !== undefined) error.thrownCode = raw.guestCode;
  return { ok: false, error };
}
