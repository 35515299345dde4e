import { describe, expect, it } from 'vitest';
import { eitherSignal } from '../src/execution/cancel.js';

describe('eitherSignal', () => {
  it('aborts with the reason of whichever source aborts first, once', () => {
    const a = new AbortController();
    const b = new AbortController();
    const both = eitherSignal(a.signal, b.signal);
    const seen: unknown[] = [];
    both.signal.addEventListener('abort', () => seen.push(both.signal.reason));
    expect(both.signal.aborted).toBe(false);
    b.abort('deadline');
    a.abort('cancelled');
    expect(both.signal.aborted).toBe(true);
    expect(seen).toEqual(['deadline']);
    both.dispose();
  });

  it('is aborted from the start when a source already is, with the first aborted source in order', () => {
    const a = new AbortController();
    const b = new AbortController();
    b.abort('b first');
    a.abort('a later');
    expect(eitherSignal(a.signal, b.signal).signal.reason).toBe('a later');
    const c = new AbortController();
    expect(eitherSignal(c.signal, b.signal).signal.reason).toBe('b first');
  });

  it('follows neither source once disposed', () => {
    const a = new AbortController();
    const b = new AbortController();
    const both = eitherSignal(a.signal, b.signal);
    both.dispose();
    a.abort('late');
    expect(both.signal.aborted).toBe(false);
  });
});
