export interface Colors {
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

/** Colour only on a TTY, and never when NO_COLOR is set (https://no-color.org). */
export function createColors(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Colors {
  const on = stream.isTTY === true && !('NO_COLOR' in env && env.NO_COLOR !== '');
  const id = (s: string) => s;
  if (!on) return { red: id, yellow: id, cyan: id, dim: id, bold: id };
  return { red: wrap(31, 39), yellow: wrap(33, 39), cyan: wrap(36, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}
