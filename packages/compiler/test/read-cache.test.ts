import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeHost, ReadCache, type CompilerHost } from '../src/host.js';

const FILE = '/pkg/routines/a.md';
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A file whose stamp stays `s` while its bytes change: two writes within one timestamp tick. */
function sameTickHost(changedAt: number): { host: CompilerHost; write(text: string): void } {
  let text = 'first';
  const bytes = () => new TextEncoder().encode(text);
  const host: CompilerHost = {
    ...nodeHost,
    readFile: bytes,
    readStamped: () => ({ bytes: bytes(), stamp: 's', changedAt }),
    stamp: () => 's',
  };
  return { host, write: (next) => void (text = next) };
}

afterEach(() => vi.restoreAllMocks());

/** Reads the file at `msAfter` its change, writes it again within its tick, and reads it once more. */
function readWriteRead(changedAt: number, msAfter: number): { first: string; second: string; hits: number } {
  const { host, write } = sameTickHost(changedAt);
  const cache = new ReadCache(host);
  vi.spyOn(Date, 'now').mockReturnValue(changedAt + msAfter);
  const first = decode(cache.read(FILE));
  write('other');
  return { first, second: decode(cache.read(FILE)), hits: cache.hits };
}

describe('ReadCache and racy stamps', () => {
  const changedAt = 1_764_000_000_050; // not on a whole second: a 100 ms tick

  it('does not keep a file read just past one tick after its change, as the file clock trails Date.now()', () => {
    expect(readWriteRead(changedAt, 105)).toEqual({ first: 'first', second: 'other', hits: 0 });
  });

  it('keeps a file read well after its change, and serves it while its stamp is the same', () => {
    expect(readWriteRead(changedAt, 200)).toEqual({ first: 'first', second: 'first', hits: 1 });
  });
});
