import type { Reporter } from '../diagnostics/reporter.js';
import type { Edge, StepAnalysis } from './check-step.js';

/**
 * MTH-10: a topological order that is stable (document order among ready steps), and one
 * report per strongly connected group of steps, naming a cycle step by step in flow order.
 */
export function orderSteps(r: Reporter, steps: readonly StepAnalysis[]): string[] {
  const index = new Map(steps.map((s, i) => [s.key, i]));
  const deps = steps.map((s) => [...new Set(s.edges.map((e) => index.get(e.from)).filter((i): i is number => i !== undefined))]);
  const placed = new Array<boolean>(steps.length).fill(false);
  const order: string[] = [];
  for (let progress = true; progress;) {
    progress = false;
    for (let i = 0; i < steps.length; i++) {
      if (placed[i] || !deps[i]!.every((d) => placed[d])) continue;
      placed[i] = true;
      order.push(steps[i]!.key);
      progress = true;
      // Back to the start: an earlier step that just became ready goes first.
      break;
    }
  }
  if (order.length < steps.length) reportCycles(r, steps, deps, placed);
  return order;
}

function reportCycles(r: Reporter, steps: readonly StepAnalysis[], deps: readonly number[][], placed: readonly boolean[]): void {
  const groups = components(deps, placed);
  for (const group of groups) {
    const members = new Set(group);
    const first = Math.min(...group);
    if (group.length === 1 && !deps[first]!.includes(first)) continue;
    // Walk dependencies inside the group until a step repeats: that loop is a cycle.
    const seen = new Map<number, number>();
    const walk: number[] = [];
    let at = first;
    while (!seen.has(at)) {
      seen.set(at, walk.length);
      walk.push(at);
      at = deps[at]!.filter((d) => members.has(d)).sort((a, b) => a - b)[0]!;
    }
    // walk[k] depends on walk[k+1]: reversed, the loop reads in flow order.
    const loop = walk.slice(seen.get(at)).reverse();
    const start = loop.indexOf(Math.min(...loop));
    const cycle = [...loop.slice(start), ...loop.slice(0, start)];
    const names = [...cycle, cycle[0]!].map((i) => steps[i]!.key);
    const related = cycle.map((consumer, k) => {
      const producer = cycle[(k + cycle.length - 1) % cycle.length]!;
      const edge = edgeFrom(steps[consumer]!, steps[producer]!.key)!;
      return r.locate(edge.span, describeEdge(steps[consumer]!.key, steps[producer]!.key, edge));
    });
    const head = steps[cycle[0]!]!;
    r.report(
      'BP6091',
      head.keySpan,
      `Unexpected dependency cycle ${names.map((n) => `\`${n}\``).join(' → ')}, expected steps that do not wait for themselves`,
      {
        hint: 'data references and `after` both order steps; remove one of the links listed',
        related: [...related.slice(1), related[0]!],
      },
    );
  }
}

function edgeFrom(step: StepAnalysis, producer: string): Edge | undefined {
  return step.edges.find((e) => e.from === producer);
}

function describeEdge(consumer: string, producer: string, edge: Edge): string {
  return edge.via === 'after' ? `\`${consumer}\` runs after \`${producer}\`` : `\`${consumer}\` reads \`${edge.text}\` from \`${producer}\``;
}

/** Strongly connected components of the unplaced steps (iterative Tarjan), by first member. */
function components(deps: readonly number[][], placed: readonly boolean[]): number[][] {
  const n = deps.length;
  const order = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const stack: number[] = [];
  const result: number[][] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (placed[root] || order[root] !== -1) continue;
    const work: { v: number; next: number }[] = [{ v: root, next: 0 }];
    order[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = true;
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = deps[frame.v]!;
      if (frame.next < edges.length) {
        const w = edges[frame.next++]!;
        if (placed[w]) continue;
        if (order[w] === -1) {
          order[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = true;
          work.push({ v: w, next: 0 });
        } else if (onStack[w]) low[frame.v] = Math.min(low[frame.v]!, order[w]!);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent.v] = Math.min(low[parent.v]!, low[frame.v]!);
      if (low[frame.v] === order[frame.v]) {
        const group: number[] = [];
        for (let w = stack.pop()!; ; w = stack.pop()!) {
          onStack[w] = false;
          group.push(w);
          if (w === frame.v) break;
        }
        result.push(group);
      }
    }
  }
  return result.sort((a, b) => Math.min(...a) - Math.min(...b));
}

/**
 * MTH-12 (warning): a step that reads the output of a conditional step runs only when it
 * carries the same condition; otherwise it stops when the producer was skipped.
 */
export function checkConditionalConsumers(r: Reporter, steps: readonly StepAnalysis[]): void {
  const byKey = new Map(steps.map((s) => [s.key, s]));
  for (const consumer of steps) {
    for (const edge of consumer.edges) {
      if (edge.via !== 'data') continue;
      const producer = byKey.get(edge.from);
      if (!producer?.when || producer.key === consumer.key) continue;
      if (consumer.when && consumer.when.ref.text === producer.when.ref.text) continue;
      r.report(
        'BP6111',
        edge.span,
        `Unexpected read of \`${edge.text}\` from the conditional step \`${producer.key}\` in step \`${consumer.key}\` without \`when: ${producer.when.ref.text}\`, expected the same condition`,
        {
          hint: `when \`${producer.when.ref.text}\` is false, \`${producer.key}\` is skipped and \`${consumer.key}\` stops; add \`when: ${producer.when.ref.text}\` to \`${consumer.key}\``,
          related: [r.locate(producer.when.span, `\`${producer.key}\` runs only when \`${producer.when.ref.text}\``)],
        },
      );
    }
  }
}
