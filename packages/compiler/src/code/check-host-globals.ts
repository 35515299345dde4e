import { staticMemberKey, type Node } from './ast.js';
import type { CodeReporter } from './code-reporter.js';
import { freeReferences, type ScopeAnalysis } from './scope.js';

/** CODE-5: globals of Node, browsers and other hosts that portable code must not touch. */
export const HOST_GLOBALS: ReadonlyMap<string, string> = new Map([
  ...['process', 'require', 'module', 'exports', '__dirname', '__filename', 'global', 'Buffer'].map(
    (n) => [n, 'Node globals do not exist in portable code'] as const,
  ),
  ...['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource'].map((n) => [n, "external IO goes through a declared tool: `await tools['name'](input)`"] as const),
  ...['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate', 'queueMicrotask'].map(
    (n) => [n, 'there are no timers: code runs to completion and waits only on tool calls'] as const,
  ),
  ...['Deno', 'Bun', 'importScripts', 'Worker', 'SharedArrayBuffer', 'Atomics'].map(
    (n) => [n, 'host runtimes, workers and shared memory do not exist in portable code'] as const,
  ),
  ...['WeakRef', 'FinalizationRegistry'].map((n) => [n, 'garbage-collection timing differs between runs, so replay would diverge'] as const),
]);

/** Names of the global object itself: `globalThis.fetch` is `fetch`. */
const GLOBAL_OBJECTS = new Set(['globalThis', 'self', 'window']);

/** `Date.now`, `Math.random`…: replayable only because the runtime fixes and records them. */
const CLOCK_AND_RANDOM = new Set(['Date.now', 'Math.random', 'crypto.getRandomValues', 'crypto.randomUUID', 'performance.now']);

/**
 * Free references only: a local `const fetch = …` or a parameter named `process` is not a
 * host global. `globalThis[name]` with a name computed at run time is left alone.
 */
export function checkHostGlobals(scopes: ScopeAnalysis, cr: CodeReporter): void {
  for (const ref of freeReferences(scopes)) {
    // Walk out through static member accesses: globalThis.self.fetch → [globalThis, self, fetch].
    const chain: Node[] = [ref.id];
    const names = [ref.id.name];
    for (;;) {
      const last = chain[chain.length - 1]!;
      const parent = scopes.parents.get(last);
      if (parent?.type !== 'MemberExpression' || parent.object !== last) break;
      const key = staticMemberKey(parent);
      if (key === undefined) break;
      chain.push(parent);
      names.push(key);
    }
    let i = 0;
    while (i < names.length - 1 && GLOBAL_OBJECTS.has(names[i]!)) i++;
    const name = names[i]!;
    const at = chain[i]!;
    const span = { start: ref.id.start, end: at.end };
    const written = cr.slice(span);
    const hostHint = HOST_GLOBALS.get(name);
    if (hostHint !== undefined) {
      cr.report('BP3040', span, `Unexpected host global \`${written}\`, expected only the language's own globals`, { hint: hostHint });
      continue;
    }
    const member = names[i + 1];
    if (member !== undefined && CLOCK_AND_RANDOM.has(`${name}.${member}`)) {
      const end = chain[i + 1]!.end;
      const call = cr.slice({ start: ref.id.start, end }) + '()';
      reportClock(cr, { start: ref.id.start, end }, call);
      continue;
    }
    if (name === 'Date' && i + 1 === names.length) {
      // `new Date()` and `Date()` without arguments read the clock; with arguments they do not.
      const parent = scopes.parents.get(at);
      if ((parent?.type === 'NewExpression' || parent?.type === 'CallExpression') && parent.callee === at && parent.arguments.length === 0) {
        reportClock(cr, { start: parent.start, end: parent.end }, cr.slice({ start: parent.start, end: parent.end }));
      }
    }
  }
}

function reportClock(cr: CodeReporter, span: { start: number; end: number }, written: string): void {
  cr.report('BP3041', span, `Unexpected \`${written}\` in replayable code, expected time and randomness from the input or a tool`, {
    hint: 'at run time the clock and randomness are fixed per invocation and recorded, so every read in one invocation returns the same value',
  });
}
