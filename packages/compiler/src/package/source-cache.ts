import { sha256Hex } from '../bundle/digest.js';
import { checkSource, type CheckSourceResult } from '../routine/check-routine.js';

/**
 * Per-file check results keyed by path and content digest: a rebuild after one edit
 * parses and checks only that file again. Counters let tests prove it.
 */
export class SourceCache {
  private readonly entries = new Map<string, { digest: string; result: CheckSourceResult }>();
  parsed = 0;
  reused = 0;

  check(file: string, bytes: Uint8Array): CheckSourceResult & { digest: string } {
    const digest = sha256Hex(bytes);
    const hit = this.entries.get(file);
    if (hit && hit.digest === digest) {
      this.reused++;
      return { ...hit.result, digest };
    }
    this.parsed++;
    const result = checkSource(file, bytes);
    this.entries.set(file, { digest, result });
    return { ...result, digest };
  }

  /** Forgets files that no longer exist, so a long watch session does not grow without bound. */
  retain(files: ReadonlySet<string>): void {
    for (const file of this.entries.keys()) if (!files.has(file)) this.entries.delete(file);
  }
}
