import type { CodeInfo } from './types.js';

/** BP9xxx: reading inputs. */
export const internalCodes = {
  BP9001: { rule: 'SRC-10', severity: 'error', title: 'A file could not be read', needs: 'a file that disappears or cannot be opened while it is checked' },
  BP9010: {
    rule: 'RUN-4',
    severity: 'error',
    title: '`runtime.yaml` is not valid (an unknown key or a bad value)',
    needs: 'a `runtime.yaml` beside the manifest, bundle or method document, or given with `--config`, that `run`, `replay` or `method run` reads',
  },
} as const satisfies Record<string, CodeInfo>;
