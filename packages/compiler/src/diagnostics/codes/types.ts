import type { Severity } from '../diagnostic.js';

export interface CodeInfo {
  /** Rule ID from spec/rules.md. */
  rule: string;
  severity: Severity;
  /** One line for docs/diagnostics.md. */
  title: string;
  /**
   * A complete `.md` source that produces this code when checked on its own. A test
   * checks every example, and docs/diagnostics.md shows it. Omitted for codes that need
   * more than one file (see `needs`).
   */
  example?: string;
  /** What a code without a single-file example needs (e.g. "two sources"). */
  needs?: string;
}
