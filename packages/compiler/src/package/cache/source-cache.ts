import { Sweeper } from './sweeper.js';
import { sha256Hex } from '../../bundle/digest.js';
import { checkSource, type CheckSourceResult } from '../../routine/check-routine.js';
import { compactRoutine } from '../compact-routine.js';

/** `digest`: the SHA-256 of the bytes, or '' in a one-shot compiler that took none. */
export type CheckedSource = CheckSourceResult & { digest: string };

/**
 * Per-file check results keyed by path and content digest: a rebuild after one edit
 * parses and checks only that file again. An unchanged file comes back as the same result
 * object (later caches key on it), and bytes served by the read cache as the same object
 * are not even hashed again. Counters let tests prove it.
 */
export class SourceCache {
  private entries = new Map<string, { bytes: Uint8Array; result: CheckedSource }>();
  private readonly live = new Sweeper();
  parsed = 0;
  reused = 0;

  /**
   * `oneShot`: the compiler builds once (`CompilerOptions.oneShot`), so a file is never compared
   * with an earlier version of itself: no digest is taken (a worker's is kept), nothing is swept.
   * The same bytes served again (a build right after `prepare`) still find their result.
   */
  constructor(private readonly oneShot = false) {}

  /** `known`: the bytes' SHA-256 when another thread has taken it already (a cold build's worker). */
  check(file: string, bytes: Uint8Array, known?: string): CheckedSource {
    if (!this.oneShot) this.live.use(file);
    const hit = this.entries.get(file);
    if (hit && hit.bytes === bytes) {
      this.reused++;
      return hit.result;
    }
    if (this.oneShot) return this.parse(file, bytes, known ?? '');
    const digest = known ?? sha256Hex(bytes);
    if (hit && hit.result.digest === digest) {
      this.reused++;
      this.entries.set(file, { bytes, result: hit.result });
      return hit.result;
    }
    return this.parse(file, bytes, digest);
  }

  private parse(file: string, bytes: Uint8Array, digest: string): CheckedSource {
    this.parsed++;
    const checked = checkSource(file, bytes);
    // A clean source keeps only what the package-wide steps read: its located tree dies young.
    const routine = checked.routine !== undefined && checked.status === 'source' ? compactRoutine(checked.routine) : checked.routine;
    const result = { ...checked, routine, digest };
    this.entries.set(file, { bytes, result });
    return result;
  }

  has(file: string): boolean {
    return this.entries.has(file);
  }

  /** A result computed elsewhere (a worker thread of a cold build) for exactly these bytes. */
  prime(file: string, bytes: Uint8Array, result: CheckedSource): void {
    this.parsed++;
    this.entries.set(file, { bytes, result });
  }

  /** Forgets files the latest build of no root checked, so a long watch session does not grow without bound. */
  sweep(root: string): void {
    if (!this.oneShot) this.live.sweep(root, this.entries);
  }
}
