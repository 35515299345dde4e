export interface Position {
  /** 1-based */
  line: number;
  /** 1-based, in UTF-16 code units */
  column: number;
}

/** Maps offsets of a normalized (LF-only) text to 1-based line and column. */
export class LineIndex {
  readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= clamped) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: clamped - this.starts[lo]! + 1 };
  }

  lineText(line: number): string {
    const start = this.starts[line - 1];
    if (start === undefined) return '';
    const next = this.starts[line];
    return this.text.slice(start, next === undefined ? this.text.length : next - 1);
  }

  get lineCount(): number {
    return this.starts.length;
  }
}
