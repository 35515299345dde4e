import { isPlainObject } from '../json.js';

export interface HttpRequestOptions {
  fetch: typeof fetch;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The caller's signal: the execution's deadline or cancellation. Never retried past. */
  signal: AbortSignal;
  /** Milliseconds one attempt may take. @default 120000 */
  timeoutMs?: number;
  /** Attempts after the first, on 429, 5xx, a network error or an attempt's timeout. @default 2 */
  retries?: number;
  /** The model asked for, to name it when the server does not know it. */
  model?: string;
  /** Values never to repeat in an error message (the API key). */
  secrets?: readonly string[];
  /** Waits between attempts; tests pass a recording one. @default an abortable timer */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
export const DEFAULT_RETRIES = 2;
/** Backoff without Retry-After: 0.5 s, 1 s, 2 s, … up to 8 s. */
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A Retry-After longer than this is not waited for: the request fails at once, saying so. */
const MAX_RETRY_AFTER_MS = 60_000;
const SHOWN_BODY = 300;

/** A refusal of an HTTP model API, with a message that says what to fix. */
export class HttpModelError extends Error {
  override name = 'HttpModelError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * POSTs JSON to a model API and returns the parsed JSON answer (docs/runtime.md, "Providers"):
 * each attempt bounded by its own timeout, 429/5xx, network errors and timed-out attempts
 * retried with exponential backoff (honouring `Retry-After`), all within the caller's signal,
 * which cancels at once. 401/403 say the key was refused; 404 (or `model_not_found`) names the
 * model. The API key never appears in a message.
 */
export async function postJson(options: HttpRequestOptions): Promise<unknown> {
  const retries = options.retries ?? DEFAULT_RETRIES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const sleep = options.sleep ?? abortableSleep;
  const clean = (text: string) => (options.secrets ?? []).reduce((t, secret) => (secret === '' ? t : t.split(secret).join('[redacted]')), text);
  for (let attempt = 0; ; attempt++) {
    options.signal.throwIfAborted();
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await options.fetch(options.url, {
        method: 'POST',
        headers: options.headers,
        body: options.body,
        signal: AbortSignal.any([options.signal, timeout]),
      });
      text = await response.text();
    } catch (error) {
      options.signal.throwIfAborted();
      const why = timeout.aborted ? `no answer within ${timeoutMs} ms` : `network error: ${causeOf(error)}`;
      if (attempt < retries) {
        await sleep(backoff(attempt), options.signal);
        continue;
      }
      throw new HttpModelError(clean(`Unexpected failure of POST ${options.url} after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}: ${why}`));
    }
    if (response.ok) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new HttpModelError(clean(`Unexpected response from ${options.url} that is not JSON: ${text.slice(0, SHOWN_BODY)}`), response.status);
      }
    }
    const detail = clean(errorDetail(text));
    const status = response.status;
    if (status === 429 || status >= 500) {
      const retryAfter = retryAfterMs(response.headers.get('retry-after'));
      if (attempt < retries && (retryAfter === undefined || retryAfter <= MAX_RETRY_AFTER_MS)) {
        await sleep(retryAfter ?? backoff(attempt), options.signal);
        continue;
      }
      const waited =
        retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS
          ? ` (it asks to retry after ${Math.ceil(retryAfter / 1000)} s, more than ${MAX_RETRY_AFTER_MS / 1000} s)`
          : '';
      throw new HttpModelError(
        `Unexpected HTTP ${status} from ${options.url} after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}${waited}: ${detail}`,
        status,
      );
    }
    if (status === 401 || status === 403) {
      throw new HttpModelError(
        `Unexpected HTTP ${status} from ${options.url}: the server refused the API key (check the variable apiKeyEnv names): ${detail}`,
        status,
      );
    }
    if (status === 404 || /model_not_found/.test(detail) || (status === 400 && /model/i.test(detail) && /not found|does not exist|unknown/i.test(detail))) {
      throw new HttpModelError(
        `Unexpected HTTP ${status} from ${options.url}: the server does not know model \`${options.model ?? '(none)'}\` (check \`model\` in runtime.yaml): ${detail}`,
        status,
      );
    }
    throw new HttpModelError(`Unexpected HTTP ${status} from ${options.url}: ${detail}`, status);
  }
}

function backoff(attempt: number): number {
  return Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
}

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The API's own message when it gives one (`{"error": {"message"}}`), else the start of the body. */
function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    const error = isPlainObject(body) ? body['error'] : undefined;
    if (isPlainObject(error) && typeof error['message'] === 'string')
      return `${error['message']}${typeof error['code'] === 'string' ? ` (${error['code']})` : ''}`;
    if (typeof error === 'string') return error;
  } catch {
    // not JSON: shown as it is
  }
  return text.slice(0, SHOWN_BODY) || '(empty body)';
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) return 'code' in cause && typeof cause.code === 'string' ? `${cause.code} ${cause.message}` : cause.message;
  return String(cause);
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
