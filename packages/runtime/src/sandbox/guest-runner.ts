/**
 * The guest half of the bridge, evaluated inside every fresh VM before any module of the
 * routine (the runner-factory pattern). It builds `tools`, `context` and `crypto` from
 * guest objects, so guest code never holds a host object; the only host function it
 * captures, `send`, takes and returns strings and numbers, and stays in this closure.
 *
 * Guest code can patch every global and prototype of its own VM, so the intrinsics the
 * runner needs are captured first. Patching them anyway only corrupts the guest's own
 * result: the host validates every message (tool names, JSON, sizes) on its side.
 *
 * `guestRunner` runs in QuickJS, not in Node: the VM gets its source text
 * (`GUEST_RUNNER_SOURCE`, from Function.prototype.toString of the compiled function, which
 * works the same from dist/, from the tests' sources and from an application that bundles the
 * runtime). So it is one self-contained function: it reads nothing of this module or of Node,
 * and it uses no syntax a bundler might lower into a helper defined outside it (object spread,
 * async functions, classes); eslint.config.js refuses those here.
 */

/** What the worker tells the runner about the invocation (worker.ts builds it). */
export interface GuestConfig {
  tools: string[];
  catalog: boolean;
  outcome: boolean;
  ports: { input: boolean; output: boolean };
  outputBytes: number;
  cryptoSeed: number;
}

/**
 * The one host function: `call` (seq, tool name, input JSON), `op` (seq, catalog | receive |
 * emit | outcome, value JSON or call id, kind, answers), `done` (0, output JSON) and `fail`
 * (0, JSON of what was thrown).
 */
export type GuestSend = (kind: 'call' | 'op' | 'done' | 'fail', seq: number, a?: string, b?: string, c?: string, d?: string) => void;

export interface GuestRunner {
  /** Calls the entry module's default export once its namespace promise settles. */
  start(namespace: Promise<Record<string, unknown>>): void;
  /**
   * The host's answer to request `seq`: its admission (tool calls), its outcome, or both at once
   * (`answer`: admitted with the receipt JSON `receipt`, then settled).
   */
  dispatch(kind: 'admit' | 'settle' | 'answer', seq: number, ok: boolean, payload: string | undefined, receipt?: string): void;
}

export const GUEST_RUNNER_FILENAME = '<berrypack-runner>';

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

interface Pending {
  outcome: Deferred<unknown>;
  call?: Receipt;
}

/**
 * A tool call's admission. It is kept as the host's JSON text and becomes a promise only if the
 * guest asks `context.receipt` for it (most never do). It holds nothing of the call's promise,
 * which keys it in a WeakMap.
 */
interface Receipt {
  /** The receipt JSON, once admitted. */
  text?: string | undefined;
  /** Why the call was refused, if it was. */
  refused?: { code: string; message: string };
  /** What `context.receipt` returns, made on its first request. */
  promise?: Promise<unknown>;
  /** Settles `promise` when it was asked for before the admission came. */
  admission?: Deferred<unknown>;
}

interface Report {
  kind: string;
  name?: string;
  message?: string;
  stack?: string;
  code?: string;
}

type TypedArrayGetter = (this: unknown) => unknown;

export function guestRunner(send: GuestSend, configText: string, inputText: string | undefined): GuestRunner {
  'use strict';
  const G = globalThis as unknown as Record<string, unknown>;
  // Untyped on purpose: it calls captured intrinsics on values the guest handed in.
  const apply = Reflect.apply as (target: (...args: never[]) => unknown, thisArgument: unknown, args: readonly unknown[]) => unknown;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const create = Object.create as (proto: null) => object;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getPrototypeOf = Object.getPrototypeOf as (o: object) => object;
  const isArray = Array.isArray;
  const isFinite_ = Number.isFinite;
  const JSON_ = JSON;
  const jsonParse = JSON.parse;
  const jsonStringify = JSON.stringify;
  const PromiseC = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseResolve = Promise.resolve;
  const promiseReject = Promise.reject;
  const MapC = Map,
    mapGet = Map.prototype.get,
    mapSet = Map.prototype.set,
    mapDelete = Map.prototype.delete;
  const WeakMapC = WeakMap,
    wmGet = WeakMap.prototype.get,
    wmSet = WeakMap.prototype.set;
  const WeakSetC = WeakSet,
    wsAdd = WeakSet.prototype.add,
    wsHas = WeakSet.prototype.has;
  const ErrorC = Error,
    TypeErrorC = TypeError,
    RangeErrorC = RangeError;
  const StringC = String,
    strSlice = String.prototype.slice,
    strIndexOf = String.prototype.indexOf;
  const numberToString = Number.prototype.toString;
  const reTest = RegExp.prototype.test;
  const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const Uint8ArrayC = Uint8Array;
  const typedArrayProto = getPrototypeOf(Uint8Array.prototype);
  const getter = (key: PropertyKey): TypedArrayGetter => getOwnPropertyDescriptor(typedArrayProto, key)!.get as TypedArrayGetter;
  const taTag = getter(Symbol.toStringTag);
  const taBuffer = getter('buffer');
  const taOffset = getter('byteOffset');
  const taLength = getter('byteLength');
  const DOMExceptionC = typeof DOMException === 'function' ? DOMException : undefined;
  const imul = Math.imul;

  const config = jsonParse(configText) as GuestConfig;
  const input: unknown = inputText === undefined ? undefined : jsonParse(inputText);
  const outputBytes = config.outputBytes;

  // CODE-5's host globals that the engine has: no job-queue hook, no observable GC, no shared memory.
  const withheld = ['queueMicrotask', 'WeakRef', 'FinalizationRegistry', 'SharedArrayBuffer', 'Atomics', 'WebAssembly'];
  for (let w = 0; w < withheld.length; w++) delete G[withheld[w]!];

  // V8's stack API hands out the functions on the stack (QuickJS even for strict ones), which
  // would give guest code the runner's internals; stacks stay plain strings.
  defineProperty(ErrorC, 'prepareStackTrace', { value: undefined, writable: false, enumerable: false, configurable: false });

  // crypto: seeded per invocation like Math.random, so a replay sees the same bytes. Not secret.
  let rng = config.cryptoSeed | 0;
  function nextU32(): number {
    rng = (rng + 0x6d2b79f5) | 0;
    let t = rng;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  function fillBytes(bytes: Uint8Array, n: number): void {
    for (let i = 0; i < n; i += 4) {
      let r = nextU32();
      for (let k = 0; k < 4 && i + k < n; k++) {
        bytes[i + k] = r & 255;
        r >>>= 8;
      }
    }
  }
  function getRandomValues<T>(array: T): T {
    const tag = array !== null && typeof array === 'object' ? apply(taTag, array, []) : undefined;
    switch (tag) {
      case 'Int8Array':
      case 'Uint8Array':
      case 'Uint8ClampedArray':
      case 'Int16Array':
      case 'Uint16Array':
      case 'Int32Array':
      case 'Uint32Array':
      case 'BigInt64Array':
      case 'BigUint64Array':
        break;
      default:
        throw new TypeErrorC('crypto.getRandomValues expects an integer typed array');
    }
    const length = apply(taLength, array, []) as number;
    if (length > 65536) {
      const message = 'crypto.getRandomValues: ' + length + ' bytes requested, at most 65536 allowed';
      throw DOMExceptionC ? new DOMExceptionC(message, 'QuotaExceededError') : new RangeErrorC(message);
    }
    fillBytes(new Uint8ArrayC(apply(taBuffer, array, []) as ArrayBuffer, apply(taOffset, array, []) as number, length), length);
    return array;
  }
  const hex = '0123456789abcdef';
  function randomUUID(): string {
    const b = new Uint8ArrayC(16);
    fillBytes(b, 16);
    b[6] = (b[6]! & 15) | 64;
    b[8] = (b[8]! & 63) | 128;
    let s = '';
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
      s += hex[b[i]! >>> 4]! + hex[b[i]! & 15]!;
    }
    return s;
  }
  defineProperty(G, 'crypto', {
    value: freeze({ getRandomValues: getRandomValues, randomUUID: randomUUID }),
    writable: true,
    enumerable: false,
    configurable: true,
  });

  // JSON at the boundary
  const marked = new WeakSetC<object>();
  function mark(error: Error, code: string): Error {
    defineProperty(error, 'code', { value: code, writable: true, enumerable: true, configurable: true });
    apply(wsAdd, marked, [error]);
    return error;
  }
  function markedCode(e: unknown): string | undefined {
    return e !== null && typeof e === 'object' && apply(wsHas, marked, [e]) ? (e as { code: string }).code : undefined;
  }
  function describeValue(v: unknown): string {
    switch (typeof v) {
      case 'number':
        return apply(numberToString, v, []) as string;
      case 'undefined':
        return 'undefined';
      case 'function':
        return 'a function';
      case 'symbol':
        return 'a symbol';
      case 'bigint':
        return 'a BigInt';
      default:
        return typeof v;
    }
  }
  function member(holder: unknown, key: string): string {
    if (isArray(holder)) return '[' + key + ']';
    return apply(reTest, identifier, [key]) ? '.' + key : '[' + jsonStringify(key) + ']';
  }
  const BAD = create(null);
  // Every value JSON.stringify would drop or rewrite is refused, except an object member that is
  // undefined: JSON has no undefined, and leaving such a member out is what JSON means by it.
  function checker(what: string, paths: Map<unknown, string> | undefined): (this: unknown, key: string, value: unknown) => unknown {
    let root = true;
    return function (this: unknown, key: string, value: unknown): unknown {
      const isRoot = root;
      root = false;
      const t = typeof value;
      if (t === 'string' || t === 'boolean' || value === null) return value;
      if (t === 'number' && isFinite_(value)) return value;
      if (t === 'object') {
        if (paths !== undefined) apply(mapSet, paths, [value, isRoot ? what : (apply(mapGet, paths, [this]) as string) + member(this, key)]);
        return value;
      }
      if (t === 'undefined' && !isRoot && !isArray(this)) return undefined;
      if (paths === undefined) throw BAD;
      const path = isRoot ? what : (apply(mapGet, paths, [this]) as string) + member(this, key);
      throw mark(new TypeErrorC(path + ' is ' + describeValue(value) + ', which is not JSON'), 'not-json');
    };
  }
  function isCircular(e: unknown): boolean {
    try {
      return e instanceof TypeErrorC && (apply(strIndexOf, e.message, ['circular']) as number) >= 0;
    } catch {
      return false;
    }
  }
  function encode(value: unknown, what: string, allowUndefined: boolean): string | undefined {
    if (value === undefined) {
      if (allowUndefined) return undefined;
      throw mark(new TypeErrorC(what + ' is undefined, which is not JSON'), 'not-json');
    }
    let text: string | undefined;
    try {
      text = apply(jsonStringify, JSON_, [value, checker(what, undefined)]) as string | undefined;
    } catch (e) {
      if (e !== BAD && !isCircular(e)) throw e;
      if (e === BAD) {
        // Again with paths, only on failure: naming the member costs a map entry per object.
        try {
          apply(jsonStringify, JSON_, [value, checker(what, new MapC())]);
        } catch (e2) {
          if (markedCode(e2) !== undefined) throw e2;
        }
        throw mark(new TypeErrorC(what + ' is not JSON'), 'not-json');
      }
      throw mark(new TypeErrorC(what + ' contains a circular reference, which is not JSON'), 'not-json');
    }
    if (text === undefined) throw mark(new TypeErrorC(what + ' is not JSON'), 'not-json');
    if (text.length > outputBytes) {
      throw mark(new RangeErrorC(what + ' is larger than the limit of ' + outputBytes + ' bytes'), 'output-too-large');
    }
    return text;
  }

  // Requests to the host; records are null-prototype so no inherited setter sees them.
  const pending = new MapC<number, Pending>();
  const receipts = new WeakMapC<Promise<unknown>, Receipt>();
  let seqCounter = 0;
  function noop(): void {}
  function deferred(): Deferred<unknown> {
    const d = create(null) as Deferred<unknown>;
    d.promise = new PromiseC(function (resolve, reject) {
      d.resolve = resolve;
      d.reject = reject;
    });
    return d;
  }
  function failure(info: { code: string; message: string }, callId: string | undefined): Error {
    const e = new ErrorC(info.message);
    defineProperty(e, 'code', { value: info.code, writable: true, enumerable: true, configurable: true });
    if (callId !== undefined) defineProperty(e, 'callId', { value: callId, writable: true, enumerable: true, configurable: true });
    return e;
  }
  function request(kind: 'call' | 'op', name: string, a: string | undefined, b: string | undefined, c: string | undefined): Pending {
    const seq = ++seqCounter;
    const rec = create(null) as Pending;
    rec.outcome = deferred();
    apply(mapSet, pending, [seq, rec]);
    send(kind, seq, name, a, b, c);
    return rec;
  }
  function reject(e: unknown): Promise<never> {
    return apply(promiseReject, PromiseC, [e]) as Promise<never>;
  }
  function callTool(name: string, value: unknown): Promise<unknown> {
    let text: string | undefined;
    try {
      text = encode(value, 'tools[' + jsonStringify(name) + '] input', true);
    } catch (e) {
      return reject(e);
    }
    const rec = request('call', name, text, undefined, undefined);
    rec.call = create(null);
    apply(wmSet, receipts, [rec.outcome.promise, rec.call]);
    return rec.outcome.promise;
  }
  function op(name: string, a?: string, b?: string, c?: string): Promise<unknown> {
    return request('op', name, a, b, c).outcome.promise;
  }
  function receiptOf(text: string): unknown {
    const receipt = jsonParse(text) as { callId: string; executionId: string | null };
    return freeze({ callId: receipt.callId, executionId: receipt.executionId });
  }
  function callIdOf(call: Receipt | undefined): string | undefined {
    return call?.text === undefined ? undefined : (jsonParse(call.text) as { callId: string }).callId;
  }
  /** The receipt promise of a call: settled now if the admission came, else when it comes. */
  function receiptPromise(call: Receipt): Promise<unknown> {
    if (call.promise !== undefined) return call.promise;
    if (call.text !== undefined) call.promise = apply(promiseResolve, PromiseC, [receiptOf(call.text)]) as Promise<unknown>;
    else if (call.refused !== undefined) call.promise = reject(failure(call.refused, undefined));
    else {
      call.admission = deferred();
      call.promise = call.admission.promise;
    }
    // Whether the guest ever awaits the receipt is its choice, not an unhandled rejection.
    apply(promiseThen, call.promise, [undefined, noop]);
    return call.promise;
  }
  function admit(call: Receipt | undefined, text: string | undefined): void {
    if (call === undefined) return;
    call.text = text;
    if (call.admission !== undefined) call.admission.resolve(receiptOf(text!));
  }

  const tools = {};
  for (let t = 0; t < config.tools.length; t++) {
    const name = config.tools[t]!;
    const fn = function (value: unknown): Promise<unknown> {
      return callTool(name, value);
    };
    defineProperty(fn, 'name', { value: name, configurable: true });
    defineProperty(tools, name, { value: fn, enumerable: true, writable: false, configurable: false });
  }
  freeze(tools);

  const context = {};
  function method(name: string, fn: (...args: never[]) => unknown): void {
    defineProperty(context, name, { value: fn, enumerable: true, writable: false, configurable: false });
  }
  method('receipt', function receipt(promise: unknown) {
    const call = promise !== null && typeof promise === 'object' ? (apply(wmGet, receipts, [promise]) as Receipt | undefined) : undefined;
    if (call === undefined) return reject(new TypeErrorC('context.receipt expects a promise returned by a tool call'));
    return receiptPromise(call);
  });
  if (config.catalog) {
    method('catalog', function catalog() {
      return op('catalog');
    });
  }
  if (config.outcome) {
    method('outcome', function outcome(callId: unknown) {
      if (typeof callId !== 'string') return reject(new TypeErrorC('context.outcome expects the callId of an async call'));
      return op('outcome', callId);
    });
  }
  if (config.ports.input) {
    method('receive', function receive() {
      return op('receive');
    });
  }
  if (config.ports.output) {
    method('emit', function emit(value: unknown, kind: unknown, answers: unknown) {
      if (kind !== undefined && typeof kind !== 'string') return reject(new TypeErrorC('context.emit: kind must be a string'));
      if (answers !== undefined && typeof answers !== 'string') return reject(new TypeErrorC('context.emit: answers must be a string'));
      let text: string | undefined;
      try {
        text = encode(value, 'context.emit value', false);
      } catch (e) {
        return reject(e);
      }
      return apply(promiseThen, op('emit', text, kind, answers), [noop]);
    });
  }
  freeze(context);

  function dispatch(kind: 'admit' | 'settle' | 'answer', seq: number, ok: boolean, payload: string | undefined, receipt?: string): void {
    const rec = apply(mapGet, pending, [seq]) as Pending | undefined;
    if (rec === undefined) return;
    if (kind === 'admit') {
      if (ok) return admit(rec.call, payload);
      const refused = jsonParse(payload!) as { code: string; message: string };
      apply(mapDelete, pending, [seq]);
      if (rec.call !== undefined) {
        rec.call.refused = refused;
        if (rec.call.admission !== undefined) rec.call.admission.reject(failure(refused, undefined));
      }
      rec.outcome.reject(failure(refused, undefined));
      return;
    }
    if (kind === 'answer') admit(rec.call, receipt);
    apply(mapDelete, pending, [seq]);
    if (ok) rec.outcome.resolve(payload === undefined ? undefined : jsonParse(payload));
    else rec.outcome.reject(failure(jsonParse(payload!) as { code: string; message: string }, callIdOf(rec.call)));
  }

  // Results
  function clip(s: string, n: number): string {
    return s.length > n ? (apply(strSlice, s, [0, n]) as string) + '…' : s;
  }
  function describe(e: unknown): Report {
    const d = create(null) as Report;
    d.kind = 'thrown';
    try {
      if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
        const r = e as Record<string, unknown>;
        const name = r['name'],
          message = r['message'],
          stack = r['stack'],
          code = r['code'];
        if (typeof name === 'string') d.name = clip(name, 200);
        if (typeof message === 'string') d.message = clip(message, 4000);
        if (typeof stack === 'string') d.stack = clip(stack, 16000);
        if (typeof code === 'string') d.code = clip(code, 200);
      }
      if (d.message === undefined) {
        const shown: unknown = typeof e === 'string' ? e : jsonStringify(e);
        d.message = clip(typeof shown === 'string' ? shown : StringC(e), 4000);
      }
    } catch {
      if (d.message === undefined) d.message = 'a value that cannot be shown was thrown';
    }
    return d;
  }
  function report(d: Report): void {
    send('fail', 0, jsonStringify(d));
  }
  function fail(e: unknown): void {
    report(describe(e));
  }
  function finish(value: unknown): void {
    let text: string | undefined;
    try {
      text = encode(value, 'output', false);
    } catch (e) {
      const code = markedCode(e);
      if (code === undefined) return fail(e);
      const d = create(null) as Report;
      d.kind = code;
      d.message = (e as Error).message;
      return report(d);
    }
    send('done', 0, text);
  }
  function start(namespace: Promise<Record<string, unknown>>): void {
    apply(promiseThen, namespace, [
      function (ns: Record<string, unknown>) {
        let main: unknown;
        try {
          main = ns['default'];
        } catch (e) {
          return fail(e);
        }
        if (typeof main !== 'function') {
          const d = create(null) as Report;
          d.kind = 'load';
          d.message = 'the entry module has no default export function';
          return report(d);
        }
        let result: Promise<unknown>;
        try {
          result = apply(promiseResolve, PromiseC, [
            (main as (input: unknown, tools: object, context: object) => unknown)(input, tools, context),
          ]) as Promise<unknown>;
        } catch (e) {
          return fail(e);
        }
        apply(promiseThen, result, [finish, fail]);
      },
      fail,
    ]);
  }

  return freeze({ start: start, dispatch: dispatch });
}

/** What the VM evaluates: an expression whose value is `guestRunner`. */
export const GUEST_RUNNER_SOURCE = '(' + guestRunner.toString() + ')';
