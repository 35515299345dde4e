/**
 * The worker's side of the guest bridge: what the runner's `send` carries (guest-runner.ts,
 * GuestSend), read from the VM's arguments, and the reports it makes turned into results.
 */
import type { JSValueHandle } from 'quickjs-wasi';
import type { GuestOp, RawResult } from './protocol.js';
import { failure } from './raw-result.js';

export type GuestMessage =
  | { kind: 'call'; seq: number; name: string; input: string | undefined }
  | { kind: 'op'; seq: number; op: GuestOp; value: string | undefined; publication: string | undefined; answers: string | undefined }
  | { kind: 'done'; text: string }
  | { kind: 'fail'; text: string };

/** The message of one `send(kind, seq, …)` call; undefined for anything malformed (guest code may have patched the runner). */
export function readGuestMessage(args: readonly JSValueHandle[]): GuestMessage | undefined {
  const str = (i: number): string | undefined => {
    const h = args[i];
    return h !== undefined && h.isString ? h.toString() : undefined;
  };
  const seqHandle = args[1];
  const seq = seqHandle !== undefined && seqHandle.isNumber ? seqHandle.toNumber() : 0;
  switch (str(0)) {
    case 'call': {
      const name = str(2);
      return name === undefined ? undefined : { kind: 'call', seq, name, input: str(3) };
    }
    case 'op': {
      const op = str(2);
      if (op !== 'catalog' && op !== 'receive' && op !== 'emit' && op !== 'outcome') return undefined;
      return { kind: 'op', seq, op, value: str(3), publication: str(4), answers: str(5) };
    }
    case 'done':
      return { kind: 'done', text: str(2) ?? '' };
    case 'fail':
      return { kind: 'fail', text: str(2) ?? '{}' };
    default:
      return undefined;
  }
}

/** The routine's output, unless it is larger than its limit. */
export function outputResult(text: string, limit: number): RawResult {
  return Buffer.byteLength(text, 'utf8') > limit
    ? failure('output-too-large', `output is larger than the limit of ${limit} bytes (UTF-8)`)
    : { ok: true, output: text };
}

/** What the runner reported the routine threw (or refused), as a result. */
export function guestFailure(text: string): RawResult {
  let report: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    report = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    report = {};
  }
  const s = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const kind = s(report['kind']);
  const message = s(report['message']) ?? 'the routine failed';
  if (kind === 'load' || kind === 'not-json' || kind === 'output-too-large') return failure(kind, message);
  const name = s(report['name']);
  return failure('thrown', name !== undefined && name !== '' ? `${name}: ${message}` : message, {
    stack: s(report['stack']),
    name,
    guestCode: s(report['code']),
  });
}
