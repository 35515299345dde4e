import { resolveTarget, type RoutineRef } from '../bundle/routine-table.js';
import { failure } from '../errors.js';
import { byteLength, jsonDigest, jsonText } from '../json.js';
import type { SandboxHost, SandboxInvocation, SandboxModule, SandboxResult } from '../sandbox/types.js';
import { callTool } from './call-tool.js';
import { isContextual, type Scope } from './scope.js';

/** Sandbox failures as call errors; `thrown` keeps the code's own message and location. */
const ERROR_CODES: Record<string, string> = {
  timeout: 'timeout',
  cpu: 'limit-cpu',
  memory: 'limit-memory',
  thrown: 'code-error',
  load: 'code-load',
  'not-json': 'not-json',
  'output-too-large': 'limit-output',
  internal: 'internal',
};

/**
 * A code routine position (RUN-3): its body and every module it can reach run in the sandbox
 * with `tools` holding exactly the declared names (plus, with `catalog: true`, the optional
 * tools still selectable), a `context` with ports only as declared, and the clock and seed
 * recorded for its call. Each tool call is admitted and recorded here, in the host.
 */
export async function runCode(scope: Scope): Promise<unknown> {
  const { exec, routine, call } = scope;
  const source = routine.source;
  const recorded = call.clock;
  const declared = (source.tools ?? []).map((t) => t.key);
  const discovered = source.catalog === true ? [...scope.optional].filter((name) => !declared.includes(name) && !isContextual(name)).sort() : [];
  const limits = exec.services.limits;
  const invocation: SandboxInvocation = {
    modules: codeModules(routine),
    entry: source.path,
    input: scope.input,
    tools: [...declared, ...discovered],
    // A declared output port always has emit; a successor not forwarded (`next` without `output: true`) publishes nowhere.
    context: {
      catalog: source.catalog === true,
      outcome: (source.tools ?? []).some((t) => t.options.async === true),
      ports: { input: source.port?.input === true && exec.input !== undefined && call.id === 'c1', output: source.port?.output === true },
    },
    clock: { epochMs: recorded?.epochMs ?? exec.epochMs },
    seed: recorded?.seed ?? 0,
    limits: { cpuMs: limits.cpuMs, memoryBytes: limits.memoryBytes, timeoutMs: Math.max(1, scope.allowance.remainingMs()), outputBytes: limits.outputBytes },
    // memoryBytes bounds the execution: all its live sandboxes share it (docs/runtime.md, "Limits").
    memoryBudget: exec.id,
  };
  const host: SandboxHost = {
    callTool: (name, input) => {
      const admitted = callTool(scope, name, input);
      return { callId: admitted.call.id, executionId: null, outcome: admitted.outcome };
    },
  };
  if (source.catalog === true) host.catalog = async () => catalog(scope, [...declared, ...discovered]);
  if (invocation.context.outcome) host.outcome = (callId) => asyncOutcome(scope, callId);
  if (invocation.context.ports.input) {
    host.receive = () => receive(scope);
  }
  if (invocation.context.ports.output) {
    host.emit = async (value, kind, answers) => {
      const text = jsonText(value, 'an emitted value');
      const bytes = source.port?.limits.bytes;
      if (bytes !== undefined && byteLength(text) > bytes)
        throw failure('port-limit', `Unexpected emitted value of ${byteLength(text)} bytes, expected at most ${bytes} (port.limits.bytes)`);
      if (scope.output === undefined) return;
      const answered = answers ?? exec.input?.latest;
      exec.publish(scope.output.call, {
        source: 'emit',
        value: JSON.parse(text) as unknown,
        ...(kind === undefined ? {} : { kind }),
        ...(answered === undefined ? {} : { answers: answered }),
      });
    };
  }
  const sandbox = await exec.services.sandbox();
  const result: SandboxResult = await sandbox.invoke(invocation, host);
  if (exec.fatal) throw exec.fatal;
  if (result.ok) return result.output;
  const where = result.error.location ? ` (${result.error.location.file}:${result.error.location.line}:${result.error.location.column})` : '';
  // Decision: whatever the code threw, even a failed tool call it did not catch, fails it as
  // `code-error`; the thrown code is kept in the message, since guest code can throw any code.
  const thrown = result.error.thrownCode === undefined ? '' : ` [${result.error.thrownCode}]`;
  throw failure(ERROR_CODES[result.error.code] ?? 'internal', `${result.error.message}${thrown}${where}`);
}

/** The routine body (under its `.md` path, so relative imports resolve from its directory) and every module it reaches. */
export function codeModules(routine: RoutineRef): SandboxModule[] {
  const { pkg, source } = routine;
  const body: SandboxModule = { path: source.path, source: source.code?.body ?? '' };
  // The compiler wrote the map (a magic-string v3 map of the body into its `.md` file).
  if (source.code?.map !== undefined) body.map = source.code.map as NonNullable<SandboxModule['map']>;
  const modules = [body];
  const seen = new Set<string>();
  const queue = [...(source.code?.imports ?? [])];
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const file = pkg.files.get(path);
    if (file === undefined) throw failure('invalid-bundle', `Missing module ${path} of \`${routine.qualified}\``);
    modules.push({ path, source: file.text });
    queue.push(...(pkg.content.modules[path]?.imports ?? []));
  }
  return modules;
}

/**
 * What `context.catalog()` returns: copies of the offered definitions, each with its binding
 * ID (the local routine's qualified name, or the external tool name) and its contract
 * identity (`sha256-…` of the canonical JSON of {input, output}); it grants and invokes
 * nothing, and never lists the runtime's readers.
 */
function catalog(scope: Scope, names: string[]): unknown {
  const { exec } = scope;
  return names
    .filter((name) => !isContextual(name))
    .map((name) => {
      const connection = (scope.routine.source.tools ?? []).find((t) => t.key === name);
      const resolved = connection && resolveTarget(scope.routine.pkg, connection.target);
      const entry: Record<string, unknown> = { name };
      const source = resolved?.kind === 'routine' ? resolved.routine.source : exec.services.tools.get(resolved?.kind === 'external' ? resolved.name : name);
      if (source?.description !== undefined) entry['description'] = source.description;
      if (source?.input !== undefined) entry['input'] = source.input;
      if (source?.output !== undefined) entry['output'] = source.output;
      entry['binding'] = resolved?.kind === 'routine' ? resolved.routine.qualified : resolved?.kind === 'external' ? resolved.name : name;
      entry['contract'] = jsonDigest({ input: entry['input'] ?? null, output: entry['output'] ?? null });
      return entry;
    });
}

/**
 * `context.outcome(callId)` (RUN-7, docs/runtime.md "Async outcomes"): the correlated outcome
 * of an async call this position made, once it settles: its output, or a rejection with its
 * `{code, message}`. It reads the recorded outcome; it is not a call of its own.
 */
async function asyncOutcome(scope: Scope, callId: string): Promise<unknown> {
  const call = scope.call.children.find((c) => c.id === callId && c.async);
  if (!call) throw failure('unknown-call', `Unexpected context.outcome(${JSON.stringify(callId)}), expected the callId of an async call this routine made`);
  await call.settled;
  if (call.status === 'failed') throw failure(call.error!.code, call.error!.message);
  return call.output;
}

/**
 * `context.receive()` is a recorded call (RUN-14): its outcome is the message taken, `{id,
 * value}`, or null once the port is stopped. A replay serves the recorded message, so the
 * resident sees exactly the input it saw, and nothing it did not take.
 */
async function receive(scope: Scope): Promise<unknown> {
  const { exec } = scope;
  const call = exec.admit(scope.call, 'receive', 'context.receive', undefined);
  try {
    const served = exec.served(call);
    let message: unknown;
    if (served === undefined) message = await exec.input!.receive();
    else if ('error' in served) throw failure(served.error.code, served.error.message);
    else message = served.output;
    exec.settle(call, { output: message });
    return message;
  } catch (error) {
    exec.settle(call, { error });
    throw error;
  }
}
