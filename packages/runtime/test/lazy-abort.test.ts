import { describe, expect, it } from 'vitest';
import { eitherAbort, LazyAbort } from '../src/execution/lazy-abort.js';

describe('LazyAbort', () => {
  it('gives a signal already aborted with the reason when aborted before the signal was read', () => {
    const abort = new LazyAbort();
    const seen: unknown[] = [];
    abort.onAbort((reason) => seen.push(reason));
    abort.abort('stop');
    abort.abort('again');
    expect(abort.aborted).toBe(true);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe('stop');
    expect(seen).toEqual(['stop']);
  });

  it('aborts a signal read before, with an AbortError when no reason is given', () => {
    const abort = new LazyAbort();
    const signal = abort.signal;
    expect(signal.aborted).toBe(false);
    abort.abort();
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe('AbortError');
  });

  it('calls a listener at once when already aborted, and not at all once detached', () => {
    const abort = new LazyAbort();
    const seen: unknown[] = [];
    const detach = abort.onAbort((reason) => seen.push(['detached', reason]));
    detach();
    abort.abort('x');
    abort.onAbort((reason) => seen.push(['late', reason]));
    expect(seen).toEqual([['late', 'x']]);
  });
});

describe('eitherAbort', () => {
  it('aborts with the reason of whichever source aborts first, a signal or a LazyAbort', () => {
    const deadline = new AbortController();
    const cancel = new LazyAbort();
    const both = eitherAbort([deadline.signal, cancel]);
    const signal = both.abort.signal;
    cancel.abort('cancelled');
    deadline.abort('deadline');
    expect(signal.reason).toBe('cancelled');
    both.detach();
  });

  it('is aborted from the start with the first source already aborted, in order', () => {
    const a = new AbortController();
    const b = new LazyAbort();
    b.abort('b first');
    a.abort('a later');
    expect(eitherAbort([a.signal, b]).abort.reason).toBe('a later');
    expect(eitherAbort([new LazyAbort(), b]).abort.reason).toBe('b first');
  });

  it('follows no source once detached', () => {
    const a = new AbortController();
    const b = new LazyAbort();
    const both = eitherAbort([a.signal, b]);
    both.detach();
    a.abort('late');
    b.abort('late too');
    expect(both.abort.aborted).toBe(false);
  });
});
