import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, retryAfterMs } from '../src/providers/http-request.js';

// The openai-compatible provider's HTTP layer against a real server on 127.0.0.1: retries with
// backoff on 429/5xx honouring Retry-After, per-attempt timeouts, cancellation, clear refusals.
type Handler = (response: ServerResponse) => void;
let server: Server;
let url: string;
const handlers: Handler[] = [];
let requests = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests++;
      const handle = handlers.shift() ?? ((r: ServerResponse) => reply(r, 500, { error: { message: 'nothing queued' } }));
      handle(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      // Attempts the tests left unanswered on purpose.
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

function reply(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

const KEY = 'sk-http-secret-9';

async function post(extra: { retries?: number; timeoutMs?: number; signal?: AbortSignal } = {}) {
  const waits: number[] = [];
  requests = 0;
  const promise = postJson({
    fetch,
    url,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: '{}',
    signal: extra.signal ?? new AbortController().signal,
    model: 'tiny-1',
    secrets: [KEY],
    ...(extra.retries === undefined ? {} : { retries: extra.retries }),
    ...(extra.timeoutMs === undefined ? {} : { timeoutMs: extra.timeoutMs }),
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { promise, waits };
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('did not fail');
}

describe('RUN-6: postJson (the openai-compatible HTTP layer)', () => {
  it('retries 429 after Retry-After and 5xx with exponential backoff, then answers', async () => {
    handlers.push(
      (r) => reply(r, 429, { error: { message: 'slow down' } }, { 'retry-after': '3' }),
      (r) => reply(r, 502, { error: { message: 'bad gateway' } }),
      (r) => reply(r, 200, { ok: true }),
    );
    const { promise, waits } = await post();
    expect(await promise).toEqual({ ok: true });
    expect(waits).toEqual([3000, 1000]);
    expect(requests).toBe(3);
  });

  it('gives up after the configured retries, saying how many attempts it made', async () => {
    handlers.push(
      (r) => reply(r, 500, { error: { message: 'boom' } }),
      (r) => reply(r, 500, { error: { message: 'boom again', code: 'server_error' } }),
    );
    const { promise, waits } = await post({ retries: 1 });
    expect(await failure(promise)).toBe(`Unexpected HTTP 500 from ${url} after 2 attempts: boom again (server_error)`);
    expect(waits).toEqual([500]);
  });

  it('does not wait for a Retry-After past a minute: it fails at once, saying so', async () => {
    handlers.push((r) => reply(r, 429, { error: { message: 'quota' } }, { 'retry-after': '3600' }));
    const { promise, waits } = await post();
    expect(await failure(promise)).toBe(`Unexpected HTTP 429 from ${url} after 1 attempt (it asks to retry after 3600 s, more than 60 s): quota`);
    expect(waits).toEqual([]);
  });

  it('says a refused key is refused, without the key, and names an unknown model; neither is retried', async () => {
    handlers.push((r) => reply(r, 401, { error: { message: `Incorrect API key provided: ${KEY}` } }));
    const refused = await post();
    const message = await failure(refused.promise);
    expect(message).toBe(
      `Unexpected HTTP 401 from ${url}: the server refused the API key (check the variable apiKeyEnv names): Incorrect API key provided: [redacted]`,
    );
    expect(requests).toBe(1);
    handlers.push((r) => reply(r, 404, { error: { message: 'The model `tiny-1` does not exist', code: 'model_not_found' } }));
    expect(await failure((await post()).promise)).toBe(
      `Unexpected HTTP 404 from ${url}: the server does not know model \`tiny-1\` (check \`model\` in runtime.yaml): The model \`tiny-1\` does not exist (model_not_found)`,
    );
  });

  it('abandons an attempt at its timeout and retries it; cancellation stops at once', async () => {
    handlers.push(
      () => undefined,
      (r) => reply(r, 200, { late: false }),
    );
    const { promise, waits } = await post({ timeoutMs: 200 });
    expect(await promise).toEqual({ late: false });
    expect(waits).toEqual([500]);

    handlers.push(() => undefined);
    const timedOut = await post({ timeoutMs: 200, retries: 0 });
    expect(await failure(timedOut.promise)).toBe(`Unexpected failure of POST ${url} after 1 attempt: no answer within 200 ms`);

    const controller = new AbortController();
    handlers.push(() => undefined);
    const cancelled = await post({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('cancelled by the caller')), 100);
    expect(await failure(cancelled.promise)).toBe('cancelled by the caller');
    expect(cancelled.waits).toEqual([]);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs('Tue, 01 Dec 2026 12:00:10 GMT', Date.parse('Tue, 01 Dec 2026 12:00:00 GMT'))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
