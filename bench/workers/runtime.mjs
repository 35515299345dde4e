// Runtime figures in one fresh process, each beside a plain Node function doing the same work.
//   node bench/workers/runtime.mjs ITERATIONS
// Builds bench/fixtures/runtime in memory, loads it, and times (start → result, ms):
//   firstInvocation  the first code-routine invocation (starts the sandbox worker pool)
//   sandbox          score.text: a code routine in a fresh QuickJS VM (one per invocation)
//   toolCall         per warm round trip of tools.loop, after the execution's first call:
//                    (time with k = KW + 1 − time with k = 1) / KW
//   firstToolCall    the execution's first round trip: time with k = 1 − time with k = 0
//   toolCallK50      the figure before round five: (time with k = K − time with k = 0) / K,
//                    which spread the first call's cost over K = 50 calls
//   nextModel        per `next` transition of a scripted model chain: (chain of K − chain of 1) / (K − 1)
//   nextCode         the same for a chain of code routines (a fresh VM per position)
//   scriptedModel    answer.model: render the template, one scripted decision, validate the output
//   chatTurn         one turn of a conversation (talk, a model routine with input and output
//                    ports): send a message → its scripted answer published → waiting again
// and the plain-Node references: the same function called directly (`plain*`).
// Prints one JSON line {samples: {name: [ms…]}, plain: {name: [ms…]}}.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ITER = Number(process.argv[2] ?? 30);
const K = 50;
// Large enough that one fresh VM's start-up spread (about ±1 ms) is small per call.
const KW = 500;
const t0 = performance.now();
const { createCompiler } = await import(pathToFileURL(path.join(ROOT, 'packages/compiler/dist/index.js')).href);
const { createRuntime, loadBundle } = await import(pathToFileURL(path.join(ROOT, 'packages/runtime/dist/index.js')).href);
const { score, LABEL } = await import(pathToFileURL(path.join(ROOT, 'bench/fixtures/runtime/routines/lib/score.js')).href);
const importMs = performance.now() - t0;

const built = createCompiler().build(path.join(ROOT, 'bench/fixtures/runtime/plugin.json'));
if (!built.ok) throw new Error(JSON.stringify(built.diagnostics));
const bundle = await loadBundle(built.bundle.bytes);
const runtime = createRuntime({ tools: { 'host.echo': (input) => input } });
const scripted = (script) => runtime.prepare(bundle, { grants: ['host.echo'], models: { default: { provider: 'scripted', script } } });
const base = scripted({ 'answer.model': [{ output: { answer: 'forty-two' } }] });
const chain = (k) => scripted({ 'hop.model': [...Array.from({ length: k - 1 }, () => ({ output: { state: 'more' } })), { output: { state: 'done' } }] });
const chains = { 1: chain(1), [K]: chain(K) };

async function run(name, input, preparation = base) {
  const t = performance.now();
  const { executionId } = await runtime.start(preparation, { export: name }, input);
  const outcome = await runtime.result(executionId);
  const ms = performance.now() - t;
  if (outcome.status !== 'completed') throw new Error(`${name}: ${JSON.stringify(outcome.error)}`);
  return { ms, outcome };
}

const TEXT = { text: 'note task idea draft review summary answer search', words: ['task', 'plan', 'review', 'goal'] };
const samples = {
  firstInvocation: [],
  sandbox: [],
  toolCall: [],
  firstToolCall: [],
  toolCallK50: [],
  nextModel: [],
  nextCode: [],
  scriptedModel: [],
  chatTurn: [],
};
const plain = { sandbox: [], toolCall: [], nextModel: [], scriptedModel: [], chatTurn: [] };

const first = await run('score.text', TEXT);
samples.firstInvocation.push(first.ms);
const expected = { score: score(TEXT.text, TEXT.words), label: LABEL };
if (JSON.stringify(first.outcome.output) !== JSON.stringify(expected)) throw new Error(`score.text gave ${JSON.stringify(first.outcome.output)}`);
// Warm-up: JIT, ajv validators, worker pool.
for (let i = 0; i < 3; i++) {
  await run('score.text', TEXT);
  await run('tools.loop', { k: 2 });
  await run('hop.model', { goal: 'x' }, chains[1]);
  await run('hop.model', { goal: 'x' }, chains[K]);
  await run('answer.model', { goal: 'x' });
}

for (let i = 0; i < ITER; i++) {
  samples.sandbox.push((await run('score.text', TEXT)).ms);
  const none = (await run('tools.loop', { k: 0 })).ms;
  const once = (await run('tools.loop', { k: 1 })).ms;
  const fifty = await run('tools.loop', { k: K });
  const many = await run('tools.loop', { k: KW + 1 });
  for (const [r, k] of [
    [fifty, K],
    [many, KW + 1],
  ])
    if (r.outcome.output.sum !== (k * (k - 1)) / 2) throw new Error('tools.loop gave a wrong sum');
  samples.toolCall.push((many.ms - once) / KW);
  samples.firstToolCall.push(once - none);
  samples.toolCallK50.push((fifty.ms - none) / K);
  const one = (await run('hop.model', { goal: 'x' }, chains[1])).ms;
  const long = await run('hop.model', { goal: 'x' }, chains[K]);
  if (long.outcome.calls.filter((c) => c.kind === 'next').length !== K - 1) throw new Error('hop.model made the wrong number of transitions');
  samples.nextModel.push((long.ms - one) / (K - 1));
  samples.scriptedModel.push((await run('answer.model', { goal: 'what is six times seven' })).ms);
  if (i < Math.max(3, ITER / 5)) {
    const c1 = (await run('hop.code', { n: 0, limit: 1 })).ms;
    const c5 = (await run('hop.code', { n: 0, limit: 5 })).ms;
    samples.nextCode.push((c5 - c1) / 4);
  }
}

// A conversation: one execution of `talk`, one turn per message, each answered by the script.
const WARM_TURNS = 5;
const talk = scripted({ talk: Array.from({ length: ITER + WARM_TURNS }, (_, i) => ({ text: `Answer ${i}.` })) });
const conversation = (await runtime.start(talk, { export: 'talk' }, undefined)).executionId;
let waiting;
let published = 0;
const nextReceive = () => new Promise((resolve) => (waiting = resolve));
// `watch` replays the events so far: the first receive may already be among them.
const ready = nextReceive();
runtime.watch(conversation, (event) => {
  if (event.type === 'publication') published++;
  if (event.type === 'call' && event.kind === 'receive' && event.status === 'pending') {
    const w = waiting;
    waiting = undefined;
    w?.();
  }
});
await ready;
for (let i = 0; i < ITER + WARM_TURNS; i++) {
  const waited = nextReceive();
  const t = performance.now();
  runtime.send(conversation, { parts: [{ text: `Message ${i}` }] });
  await waited;
  if (i >= WARM_TURNS) samples.chatTurn.push(performance.now() - t);
}
runtime.stop(conversation);
const talked = await runtime.result(conversation);
if (talked.status !== 'completed' || published !== ITER + WARM_TURNS) throw new Error(`talk: ${talked.status}, ${published} answers published`);

// Plain Node doing the same work: the same function; an awaited echo; a loop of K steps; a
// template rendered into a message and the scripted answer returned.
const time = async (fn, reps) => {
  const t = performance.now();
  for (let i = 0; i < reps; i++) await fn();
  return (performance.now() - t) / reps;
};
const echo = async (input) => input;
let sink = 0;
for (let i = 0; i < ITER; i++) {
  plain.sandbox.push(
    await time(() => {
      const input = JSON.parse(JSON.stringify(TEXT));
      const words = input.words ?? input.text.split(/\s+/);
      sink += JSON.stringify({ score: score(input.text, words), label: LABEL }).length;
    }, 100),
  );
  plain.toolCall.push(
    (await time(async () => {
      let sum = 0;
      for (let j = 0; j < K; j++) sum += (await echo({ i: j })).i;
      sink += sum;
    }, 20)) / K,
  );
  plain.nextModel.push(
    (await time(async () => {
      let state = 'more';
      let input = { goal: 'x' };
      for (let j = 0; j < K && state === 'more'; j++) {
        const output = await echo({ state: j === K - 1 ? 'done' : 'more' });
        state = output.state;
        input = { goal: input.goal };
      }
    }, 20)) / K,
  );
  plain.scriptedModel.push(
    await time(async () => {
      const input = { goal: 'what is six times seven' };
      const instructions = `You answer questions briefly.\n\nGoal: ${input.goal}\n`;
      const output = await echo({ answer: 'forty-two' });
      sink += instructions.length + output.answer.length;
    }, 100),
  );
  const history = [];
  plain.chatTurn.push(
    await time(async () => {
      // The message into the history, the scripted answer from an awaited call, published to a listener.
      history.push({ role: 'user', content: `Message ${history.length}` });
      const answer = await echo({ text: 'Answer.' });
      history.push({ role: 'assistant', content: answer.text });
      sink += history.length;
    }, 100),
  );
}
await runtime.close();
if (sink === 0) throw new Error('unreachable');
process.stdout.write(JSON.stringify({ importMs, iterations: ITER, k: K, samples, plain }) + '\n');
