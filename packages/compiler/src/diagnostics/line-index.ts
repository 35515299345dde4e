export interface Position {
  /** 1-based */
  line: number;
  /** 1-based, in UTF-16 code units */
  column: number;
}

/** Maps offsets of a normalized (LF-only) text to 1-based line and column. */
export class LineIndex {
  /*
   * Found on first use: a clean build asks no source for a position, and a cold build keeps every
   * source's index alive to the end (an array of about 50 numbers per source, pushed into 77 slots,
   * copied by every scavenge it survives; docs/performance.md, round seven, wt-heap).
   */
  #starts: number[] | undefined;

  constructor(readonly text: string) {}

  /** The offset at which each line starts (the first is 0). */
  get starts(): readonly number[] {
    if (this.#starts !== undefined) return this.#starts;
    const text = this.text;
    const starts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    return (this.#starts = starts);
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= clamped) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: clamped - starts[lo]! + 1 };
  }

  lineText(line: number): string {
    const starts = this.starts;
    const start = starts[line - 1];
    if (start === undefined) return '';
    const next = starts[line];
    return this.text.slice(start, next === undefined ? this.text.length : next - 1);
  }

  get lineCount(): number {
    return this.starts.length;
  }
}
