import { discoverSources, type DiscoveryResult, type ManifestInfo } from '../../manifest/index.js';
import type { CompilerHost } from '../../host.js';
import { AnswerRecorder, sameAnswers, type Answer } from '../answer-recorder.js';
import { Sweeper } from './sweeper.js';
import { sameBytes } from '../../text/same-bytes.js';

/**
 * The sources a manifest's discovery found, reused while plugin.json is the same and every
 * directory it listed (by its stamp, or listed again) and every path it probed answers the
 * same: an edit inside a file changes no listing, so a rebuild does not walk the tree again.
 */
export class DiscoveryCache {
  readonly #entries = new Map<string, { bytes: Uint8Array; log: Answer[]; result: DiscoveryResult }>();
  readonly #live = new Sweeper();
  walks = 0;
  reused = 0;

  discover(manifest: ManifestInfo, bytes: Uint8Array, host: CompilerHost): DiscoveryResult {
    this.#live.use(manifest.file);
    const known = this.#entries.get(manifest.file);
    if (known && sameBytes(known.bytes, bytes) && sameAnswers(known.log, host)) {
      this.reused++;
      // Copies: a caller may rewrite a diagnostic (relative paths).
      return { ...known.result, diagnostics: known.result.diagnostics.map((d) => ({ ...d })) };
    }
    this.walks++;
    const recording = new AnswerRecorder(host);
    const result = discoverSources(manifest, recording);
    this.#entries.set(manifest.file, { bytes, log: recording.log, result: { ...result, diagnostics: result.diagnostics.map((d) => ({ ...d })) } });
    return result;
  }

  sweep(root: string): void {
    this.#live.sweep(root, this.#entries);
  }
}
