/**
 * What a fresh VM sees of the outside, through its WASI imports: a clock fixed per invocation,
 * random bytes from the invocation's seed, and output that goes nowhere. Same seed and clock,
 * same behaviour: that is what lets a journal replay a code routine.
 */
const MASK64 = (1n << 64n) - 1n;

export interface Seeds {
  /** What the realtime clock reads while the VM is created: QuickJS seeds Math.random from it. */
  mathInitNs: bigint;
  /** The seed of the runner's crypto.getRandomValues. */
  cryptoSeed: number;
  /** WASI random_get. */
  fill: (bytes: Uint8Array) => void;
}

/**
 * Seeds derived from the invocation's seed. Every bit of the number counts (its float64
 * bits are the splitmix64 state), so distinct seeds give distinct sequences.
 */
export function seedsOf(seed: number): Seeds {
  const bits = new BigUint64Array(new Float64Array([seed]).buffer)[0] ?? 0n;
  let state = bits;
  const next = (): bigint => {
    state = (state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  };
  // QuickJS seeds Math.random's xorshift64* once, from the wall clock in microseconds at
  // context creation; the clock reads the seed then, and the invocation's clock after.
  const mathMicros = (next() % (1n << 53n)) + 1n;
  const cryptoSeed = Number(next() & 0xffffffffn) | 0;
  return {
    mathInitNs: mathMicros * 1000n,
    cryptoSeed,
    fill(bytes) {
      for (let i = 0; i < bytes.length; i += 8) {
        let r = next();
        for (let k = 0; k < 8 && i + k < bytes.length; k++) {
          bytes[i + k] = Number(r & 0xffn);
          r >>= 8n;
        }
      }
    },
  };
}

/** The WASI imports of one VM; `creating` tells whether the VM is still being created. */
export function wasiImports(memory: { buffer: ArrayBuffer }, seeds: Seeds, epochMs: number, creating: () => boolean) {
  const epochNs = BigInt(Math.max(0, Math.floor(epochMs))) * 1_000_000n;
  return {
    clock_time_get: (id: number, _precision: bigint, ptr: number) => {
      // Realtime (0) seeds Math.random during creation, then is the invocation's clock;
      // monotonic (1) is constant, so performance.now() is 0 and timeOrigin the clock.
      const value = id === 0 && creating() ? seeds.mathInitNs : epochNs;
      new DataView(memory.buffer).setBigUint64(ptr, value, true);
      return 0;
    },
    random_get: (ptr: number, len: number) => {
      seeds.fill(new Uint8Array(memory.buffer, ptr, len));
      return 0;
    },
    // No IO: whatever the engine would print is counted as written and dropped.
    fd_write: (_fd: number, iovs: number, iovsLen: number, written: number) => {
      const view = new DataView(memory.buffer);
      let n = 0;
      for (let i = 0; i < iovsLen; i++) n += view.getUint32(iovs + i * 8 + 4, true);
      view.setUint32(written, n, true);
      return 0;
    },
  };
}
