/** Writes the synthetic package of `n` routines used by the benchmarks (bench/generate.mjs); returns the files written. */
export function generatePackage(dir: string, n: number): string[];
