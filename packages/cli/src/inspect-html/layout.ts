import type { RoutineGraph } from './graph.js';

export interface Placed {
  x: number;
  y: number;
}

export interface GraphLayout {
  width: number;
  height: number;
  positions: Map<string, Placed>;
}

export const NODE_WIDTH = 184;
export const NODE_HEIGHT = 34;
const COLUMN_GAP = 56;
const ROW_GAP = 12;
const MAX_PER_COLUMN = 24;
const MARGIN = 16;

/**
 * Layered left-to-right: a node's layer is its shortest distance from a node nothing points to
 * (cycles start where they are first met), so callers sit left of what they call. A layer with
 * more than MAX_PER_COLUMN nodes wraps into several columns, which keeps 1,000 routines readable.
 */
export function layoutGraph(graph: RoutineGraph): GraphLayout {
  const out = new Map<string, string[]>();
  const incoming = new Map<string, number>();
  for (const n of graph.nodes) {
    out.set(n.id, []);
    incoming.set(n.id, 0);
  }
  for (const e of graph.edges) {
    if (e.from === e.to) continue;
    out.get(e.from)?.push(e.to);
    incoming.set(e.to, (incoming.get(e.to) ?? 0) + 1);
  }
  const layer = new Map<string, number>();
  const visit = (starts: string[]) => {
    let frontier = starts.filter((id) => !layer.has(id));
    for (const id of frontier) layer.set(id, 0);
    for (let depth = 1; frontier.length; depth++) {
      const nextFrontier: string[] = [];
      for (const id of frontier) {
        for (const to of out.get(id) ?? []) {
          if (layer.has(to)) continue;
          layer.set(to, (layer.get(id) ?? 0) + 1);
          nextFrontier.push(to);
        }
      }
      frontier = nextFrontier;
    }
  };
  visit(graph.nodes.filter((n) => incoming.get(n.id) === 0).map((n) => n.id));
  for (const n of graph.nodes) if (!layer.has(n.id)) visit([n.id]);

  const layers: string[][] = [];
  for (const n of graph.nodes) (layers[layer.get(n.id)!] ??= []).push(n.id);
  const positions = new Map<string, Placed>();
  let column = 0;
  let height = 0;
  for (const ids of layers) {
    if (!ids) continue;
    for (let start = 0; start < ids.length; start += MAX_PER_COLUMN) {
      const chunk = ids.slice(start, start + MAX_PER_COLUMN);
      chunk.forEach((id, row) => positions.set(id, { x: MARGIN + column * (NODE_WIDTH + COLUMN_GAP), y: MARGIN + row * (NODE_HEIGHT + ROW_GAP) }));
      height = Math.max(height, chunk.length * (NODE_HEIGHT + ROW_GAP) - ROW_GAP);
      column++;
    }
  }
  return { width: 2 * MARGIN + Math.max(1, column) * (NODE_WIDTH + COLUMN_GAP) - COLUMN_GAP, height: 2 * MARGIN + height, positions };
}

export interface Cell<T> {
  item: T;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Squarified treemap (Bruls, Huizing, van Wijk): each item's area is proportional to its
 * weight, rows chosen to keep cells close to square. Items with weight 0 get no cell.
 */
export function squarify<T>(items: readonly T[], weight: (item: T) => number, width: number, height: number): Cell<T>[] {
  const sorted = items.filter((i) => weight(i) > 0).sort((a, b) => weight(b) - weight(a));
  const total = sorted.reduce((s, i) => s + weight(i), 0);
  const cells: Cell<T>[] = [];
  if (total === 0) return cells;
  const scale = (width * height) / total;
  let rect = { x: 0, y: 0, width, height };
  let row: T[] = [];
  const worst = (candidate: T[], side: number): number => {
    const areas = candidate.map((i) => weight(i) * scale);
    const sum = areas.reduce((a, b) => a + b, 0);
    const max = Math.max(...areas);
    const min = Math.min(...areas);
    return Math.max((side * side * max) / (sum * sum), (sum * sum) / (side * side * min));
  };
  const place = (r: T[]) => {
    const sum = r.reduce((s, i) => s + weight(i) * scale, 0);
    const horizontal = rect.width >= rect.height; // the row is a column along the short side
    const thickness = horizontal ? sum / rect.height : sum / rect.width;
    let offset = 0;
    for (const item of r) {
      const length = (weight(item) * scale) / thickness;
      cells.push(
        horizontal
          ? { item, x: rect.x, y: rect.y + offset, width: thickness, height: length }
          : { item, x: rect.x + offset, y: rect.y, width: length, height: thickness },
      );
      offset += length;
    }
    rect = horizontal
      ? { x: rect.x + thickness, y: rect.y, width: rect.width - thickness, height: rect.height }
      : { x: rect.x, y: rect.y + thickness, width: rect.width, height: rect.height - thickness };
  };
  for (const item of sorted) {
    const side = Math.min(rect.width, rect.height);
    if (row.length === 0 || worst([...row, item], side) <= worst(row, side)) row.push(item);
    else {
      place(row);
      row = [item];
    }
  }
  if (row.length) place(row);
  return cells;
}
