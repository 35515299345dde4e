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
 * It is plain ES5-style JavaScript in a string: it runs in QuickJS, not in Node, and no
 * backticks or `${` appear in it.
 */
export const GUEST_RUNNER_FILENAME = '<berrypack-runner>';

export const GUEST_RUNNER = String.raw`(function (send, configText, inputText) {
'use strict';
var G = globalThis;
var apply = Reflect.apply;
var defineProperty = Object.defineProperty;
var freeze = Object.freeze;
var create = Object.create;
var getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
var getPrototypeOf = Object.getPrototypeOf;
var isArray = Array.isArray;
var isFinite_ = Number.isFinite;
var JSON_ = JSON;
var jsonParse = JSON.parse;
var jsonStringify = JSON.stringify;
var PromiseC = Promise;
var promiseThen = Promise.prototype.then;
var promiseResolve = Promise.resolve;
var promiseReject = Promise.reject;
var MapC = Map, mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype.delete;
var WeakMapC = WeakMap, wmGet = WeakMap.prototype.get, wmSet = WeakMap.prototype.set;
var WeakSetC = WeakSet, wsAdd = WeakSet.prototype.add, wsHas = WeakSet.prototype.has;
var ErrorC = Error, TypeErrorC = TypeError, RangeErrorC = RangeError;
var StringC = String, strSlice = String.prototype.slice, strIndexOf = String.prototype.indexOf;
var numberToString = Number.prototype.toString;
var reTest = RegExp.prototype.test;
var identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
var Uint8ArrayC = Uint8Array;
var typedArrayProto = getPrototypeOf(Uint8Array.prototype);
var taTag = getOwnPropertyDescriptor(typedArrayProto, Symbol.toStringTag).get;
var taBuffer = getOwnPropertyDescriptor(typedArrayProto, 'buffer').get;
var taOffset = getOwnPropertyDescriptor(typedArrayProto, 'byteOffset').get;
var taLength = getOwnPropertyDescriptor(typedArrayProto, 'byteLength').get;
var DOMExceptionC = typeof DOMException === 'function' ? DOMException : undefined;
var imul = Math.imul;

var config = jsonParse(configText);
var input = inputText === undefined ? undefined : jsonParse(inputText);
var outputBytes = config.outputBytes;

/* CODE-5's host globals that the engine has: no job-queue hook, no observable GC, no shared memory. */
var withheld = ['queueMicrotask', 'WeakRef', 'FinalizationRegistry', 'SharedArrayBuffer', 'Atomics', 'WebAssembly'];
for (var w = 0; w < withheld.length; w++) delete G[withheld[w]];

/* V8's stack API hands out the functions on the stack (QuickJS even for strict ones), which
   would give guest code the runner's internals; stacks stay plain strings. */
defineProperty(ErrorC, 'prepareStackTrace', { value: undefined, writable: false, enumerable: false, configurable: false });

/* crypto: seeded per invocation like Math.random, so a replay sees the same bytes. Not secret. */
var rng = config.cryptoSeed | 0;
function nextU32() {
  rng = (rng + 0x6d2b79f5) | 0;
  var t = rng;
  t = imul(t ^ (t >>> 15), t | 1);
  t ^= t + imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}
function fillBytes(bytes, n) {
  for (var i = 0; i < n; i += 4) {
    var r = nextU32();
    for (var k = 0; k < 4 && i + k < n; k++) { bytes[i + k] = r & 255; r >>>= 8; }
  }
}
function getRandomValues(array) {
  var tag = array !== null && typeof array === 'object' ? apply(taTag, array, []) : undefined;
  switch (tag) {
    case 'Int8Array': case 'Uint8Array': case 'Uint8ClampedArray': case 'Int16Array': case 'Uint16Array':
    case 'Int32Array': case 'Uint32Array': case 'BigInt64Array': case 'BigUint64Array': break;
    default: throw new TypeErrorC('crypto.getRandomValues expects an integer typed array');
  }
  var length = apply(taLength, array, []);
  if (length > 65536) {
    var message = 'crypto.getRandomValues: ' + length + ' bytes requested, at most 65536 allowed';
    throw DOMExceptionC ? new DOMExceptionC(message, 'QuotaExceededError') : new RangeErrorC(message);
  }
  fillBytes(new Uint8ArrayC(apply(taBuffer, array, []), apply(taOffset, array, []), length), length);
  return array;
}
var hex = '0123456789abcdef';
function randomUUID() {
  var b = new Uint8ArrayC(16);
  fillBytes(b, 16);
  b[6] = (b[6] & 15) | 64;
  b[8] = (b[8] & 63) | 128;
  var s = '';
  for (var i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += hex[b[i] >>> 4] + hex[b[i] & 15];
  }
  return s;
}
defineProperty(G, 'crypto', {
  value: freeze({ getRandomValues: getRandomValues, randomUUID: randomUUID }),
  writable: true, enumerable: false, configurable: true
});

/* JSON at the boundary */
var marked = new WeakSetC();
function mark(error, code) {
  defineProperty(error, 'code', { value: code, writable: true, enumerable: true, configurable: true });
  apply(wsAdd, marked, [error]);
  return error;
}
function markedCode(e) {
  return e !== null && typeof e === 'object' && apply(wsHas, marked, [e]) ? e.code : undefined;
}
function describeValue(v) {
  switch (typeof v) {
    case 'number': return apply(numberToString, v, []);
    case 'undefined': return 'undefined';
    case 'function': return 'a function';
    case 'symbol': return 'a symbol';
    case 'bigint': return 'a BigInt';
    default: return typeof v;
  }
}
function member(holder, key) {
  if (isArray(holder)) return '[' + key + ']';
  return apply(reTest, identifier, [key]) ? '.' + key : '[' + jsonStringify(key) + ']';
}
var BAD = create(null);
/* Every value JSON.stringify would drop or rewrite is refused, except an object member that is
   undefined: JSON has no undefined, and leaving such a member out is what JSON means by it. */
function checker(what, paths) {
  var root = true;
  return function (key, value) {
    var isRoot = root;
    root = false;
    var t = typeof value;
    if (t === 'string' || t === 'boolean' || value === null) return value;
    if (t === 'number' && isFinite_(value)) return value;
    if (t === 'object') {
      if (paths !== undefined) apply(mapSet, paths, [value, isRoot ? what : apply(mapGet, paths, [this]) + member(this, key)]);
      return value;
    }
    if (t === 'undefined' && !isRoot && !isArray(this)) return undefined;
    if (paths === undefined) throw BAD;
    var path = isRoot ? what : apply(mapGet, paths, [this]) + member(this, key);
    throw mark(new TypeErrorC(path + ' is ' + describeValue(value) + ', which is not JSON'), 'not-json');
  };
}
function isCircular(e) {
  try { return e instanceof TypeErrorC && apply(strIndexOf, e.message, ['circular']) >= 0; } catch (x) { return false; }
}
function encode(value, what, allowUndefined) {
  if (value === undefined) {
    if (allowUndefined) return undefined;
    throw mark(new TypeErrorC(what + ' is undefined, which is not JSON'), 'not-json');
  }
  var text;
  try {
    text = apply(jsonStringify, JSON_, [value, checker(what, undefined)]);
  } catch (e) {
    if (e !== BAD && !isCircular(e)) throw e;
    if (e === BAD) {
      /* Again with paths, only on failure: naming the member costs a map entry per object. */
      try { apply(jsonStringify, JSON_, [value, checker(what, new MapC())]); } catch (e2) { if (markedCode(e2) !== undefined) throw e2; }
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

/* Requests to the host; records are null-prototype so no inherited setter sees them. */
var pending = new MapC();
var receipts = new WeakMapC();
var seqCounter = 0;
function noop() {}
function deferred() {
  var d = create(null);
  d.promise = new PromiseC(function (resolve, reject) { d.resolve = resolve; d.reject = reject; });
  return d;
}
function failure(info, callId) {
  var e = new ErrorC(info.message);
  defineProperty(e, 'code', { value: info.code, writable: true, enumerable: true, configurable: true });
  if (callId !== undefined) defineProperty(e, 'callId', { value: callId, writable: true, enumerable: true, configurable: true });
  return e;
}
function request(kind, name, a, b, c, admitted) {
  var seq = ++seqCounter;
  var rec = create(null);
  rec.outcome = deferred();
  if (admitted) {
    rec.admission = deferred();
    /* Whether the guest ever asks for the receipt is its choice, not an unhandled rejection. */
    apply(promiseThen, rec.admission.promise, [undefined, noop]);
  }
  apply(mapSet, pending, [seq, rec]);
  send(kind, seq, name, a, b, c);
  return rec;
}
function reject(e) { return apply(promiseReject, PromiseC, [e]); }
function callTool(name, value) {
  var text;
  try { text = encode(value, 'tools[' + jsonStringify(name) + '] input', true); } catch (e) { return reject(e); }
  var rec = request('call', name, text, undefined, undefined, true);
  apply(wmSet, receipts, [rec.outcome.promise, rec.admission.promise]);
  return rec.outcome.promise;
}
function op(name, a, b, c) { return request('op', name, a, b, c, false).outcome.promise; }

var tools = {};
for (var t = 0; t < config.tools.length; t++) {
  (function (name) {
    var fn = function (value) { return callTool(name, value); };
    defineProperty(fn, 'name', { value: name, configurable: true });
    defineProperty(tools, name, { value: fn, enumerable: true, writable: false, configurable: false });
  })(config.tools[t]);
}
freeze(tools);

var context = {};
function method(name, fn) { defineProperty(context, name, { value: fn, enumerable: true, writable: false, configurable: false }); }
method('receipt', function receipt(promise) {
  var admission = promise !== null && typeof promise === 'object' ? apply(wmGet, receipts, [promise]) : undefined;
  if (admission === undefined) return reject(new TypeErrorC('context.receipt expects a promise returned by a tool call'));
  return admission;
});
if (config.catalog) method('catalog', function catalog() { return op('catalog'); });
if (config.outcome) {
  method('outcome', function outcome(callId) {
    if (typeof callId !== 'string') return reject(new TypeErrorC('context.outcome expects the callId of an async call'));
    return op('outcome', callId);
  });
}
if (config.ports.input) method('receive', function receive() { return op('receive'); });
if (config.ports.output) {
  method('emit', function emit(value, kind, answers) {
    if (kind !== undefined && typeof kind !== 'string') return reject(new TypeErrorC('context.emit: kind must be a string'));
    if (answers !== undefined && typeof answers !== 'string') return reject(new TypeErrorC('context.emit: answers must be a string'));
    var text;
    try { text = encode(value, 'context.emit value', false); } catch (e) { return reject(e); }
    return apply(promiseThen, op('emit', text, kind, answers), [noop]);
  });
}
freeze(context);

function dispatch(kind, seq, ok, payload) {
  var rec = apply(mapGet, pending, [seq]);
  if (rec === undefined) return;
  if (kind === 'admit') {
    if (ok) {
      var receipt = jsonParse(payload);
      rec.callId = receipt.callId;
      rec.admission.resolve(freeze({ callId: receipt.callId, executionId: receipt.executionId }));
      return;
    }
    var refused = jsonParse(payload);
    apply(mapDelete, pending, [seq]);
    rec.admission.reject(failure(refused, undefined));
    rec.outcome.reject(failure(refused, undefined));
    return;
  }
  apply(mapDelete, pending, [seq]);
  if (ok) rec.outcome.resolve(payload === undefined ? undefined : jsonParse(payload));
  else rec.outcome.reject(failure(jsonParse(payload), rec.callId));
}

/* Results */
function clip(s, n) { return s.length > n ? apply(strSlice, s, [0, n]) + '…' : s; }
function describe(e) {
  var d = create(null);
  d.kind = 'thrown';
  try {
    if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
      var name = e.name, message = e.message, stack = e.stack, code = e.code;
      if (typeof name === 'string') d.name = clip(name, 200);
      if (typeof message === 'string') d.message = clip(message, 4000);
      if (typeof stack === 'string') d.stack = clip(stack, 16000);
      if (typeof code === 'string') d.code = clip(code, 200);
    }
    if (d.message === undefined) {
      var shown = typeof e === 'string' ? e : jsonStringify(e);
      d.message = clip(typeof shown === 'string' ? shown : StringC(e), 4000);
    }
  } catch (x) {
    if (d.message === undefined) d.message = 'a value that cannot be shown was thrown';
  }
  return d;
}
function report(d) { send('fail', 0, jsonStringify(d)); }
function fail(e) { report(describe(e)); }
function finish(value) {
  var text;
  try {
    text = encode(value, 'output', false);
  } catch (e) {
    var code = markedCode(e);
    if (code === undefined) return fail(e);
    var d = create(null);
    d.kind = code;
    d.message = e.message;
    return report(d);
  }
  send('done', 0, text);
}
function start(namespace) {
  apply(promiseThen, namespace, [function (ns) {
    var main;
    try { main = ns['default']; } catch (e) { return fail(e); }
    if (typeof main !== 'function') {
      var d = create(null);
      d.kind = 'load';
      d.message = 'the entry module has no default export function';
      return report(d);
    }
    var result;
    try {
      result = apply(promiseResolve, PromiseC, [main(input, tools, context)]);
    } catch (e) {
      return fail(e);
    }
    apply(promiseThen, result, [finish, fail]);
  }, fail]);
}

return freeze({ start: start, dispatch: dispatch });
})`;
