import type { PortDeclaration } from '../bundle/content.js';
import { RuntimeError } from '../errors.js';
import { byteLength, isPlainObject, jsonText } from '../json.js';

export interface PortMessage {
  id: string;
  value: unknown;
}

/**
 * The input port of an execution's entry routine (RUN-14): messages carry JSON values (a
 * string stays a string, never parsed), are numbered `m1`, `m2`… and bounded by the port's
 * `limits`: bytes per message, messages in total, pending (unconsumed) at once. After `stop`,
 * `receive` answers null; unconsumed messages stay recorded and are not delivered again.
 */
export class InputPort {
  private readonly queue: PortMessage[] = [];
  private readonly waiting: ((message: PortMessage | null) => void)[] = [];
  private accepted = 0;
  private stopped = false;
  /** The latest message taken: what `emit` answers unless told otherwise. */
  latest: string | undefined;

  constructor(
    private readonly limits: PortDeclaration['limits'],
    private readonly model: boolean,
  ) {}

  accept(value: unknown): PortMessage {
    if (this.stopped) throw new RuntimeError('port-closed', 'Unexpected message after the input port was stopped', 'RUN-14');
    let text: string;
    try {
      text = jsonText(value, 'the message');
    } catch (error) {
      throw new RuntimeError('not-json', error instanceof Error ? error.message : String(error), 'RUN-14');
    }
    if (this.model) checkModelContent(value);
    if (byteLength(text) > this.limits.bytes) {
      throw new RuntimeError(
        'port-limit',
        `Unexpected message of ${byteLength(text)} bytes, expected at most ${this.limits.bytes} (port.limits.bytes)`,
        'RUN-14',
      );
    }
    if (this.accepted >= this.limits.messages) {
      throw new RuntimeError(
        'port-limit',
        `Unexpected message ${this.accepted + 1}, expected at most ${this.limits.messages} (port.limits.messages)`,
        'RUN-14',
      );
    }
    if (this.queue.length >= this.limits.pending) {
      throw new RuntimeError(
        'port-limit',
        `Unexpected message while ${this.queue.length} wait unconsumed, expected at most ${this.limits.pending} pending (port.limits.pending)`,
        'RUN-14',
      );
    }
    const message: PortMessage = { id: `m${++this.accepted}`, value: JSON.parse(text) as unknown };
    const waiter = this.waiting.shift();
    if (waiter) this.take(message, waiter);
    else this.queue.push(message);
    return message;
  }

  receive(): Promise<PortMessage | null> {
    // After a stop, what was not taken stays in the history (the journal) and is not delivered.
    if (this.stopped) return Promise.resolve(null);
    const next = this.queue.shift();
    if (next) return Promise.resolve(this.take(next));
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Takes every message already waiting, without waiting for more (a conversation's turn is one batch). */
  drain(): PortMessage[] {
    if (this.stopped) return [];
    const taken = this.queue.splice(0);
    for (const message of taken) this.take(message);
    return taken;
  }

  /** Numbers new messages after those of the execution a continuation continues. */
  continueAfter(count: number): void {
    this.accepted = Math.max(this.accepted, count);
  }

  stop(): void {
    this.stopped = true;
    for (const waiter of this.waiting.splice(0)) waiter(null);
  }

  private take(message: PortMessage, deliver?: (m: PortMessage) => void): PortMessage {
    this.latest = message.id;
    deliver?.(message);
    return message;
  }
}

const PART_KEYS = new Set(['text', 'data', 'mediaType', 'raw', 'url', 'file', 'bytes', 'filename', 'metadata']);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** RUN-14: native model content is `{parts: [...]}` with text, data, raw (canonical base64), HTTPS url or retained file parts. */
export function checkModelContent(value: unknown): void {
  const refuse = (why: string): never => {
    throw new RuntimeError(
      'invalid-content',
      `Unexpected model content: ${why}, expected {parts: [{text} | {data, mediaType?} | {mediaType, raw} | {mediaType, url} | {mediaType, file, bytes, filename}]}`,
      'RUN-14',
    );
  };
  if (!isPlainObject(value) || Object.keys(value).join() !== 'parts' || !Array.isArray(value['parts']) || value['parts'].length === 0)
    refuse('not an object with only a nonempty `parts` list');
  (value as { parts: unknown[] }).parts.forEach((part, i) => {
    if (!isPlainObject(part)) return refuse(`part ${i} is not an object`);
    for (const key of Object.keys(part)) if (!PART_KEYS.has(key)) refuse(`part ${i} has \`${key}\``);
    if (part['metadata'] !== undefined && !isPlainObject(part['metadata'])) refuse(`part ${i} has metadata that is not an object`);
    if ('text' in part) return typeof part['text'] === 'string' || refuse(`part ${i} text is not a string`);
    if ('data' in part) return part['mediaType'] === undefined || typeof part['mediaType'] === 'string' || refuse(`part ${i} mediaType is not a string`);
    if (typeof part['mediaType'] !== 'string') return refuse(`part ${i} has no mediaType`);
    if ('raw' in part) {
      if (typeof part['raw'] !== 'string' || part['raw'].startsWith('data:') || !BASE64.test(part['raw']))
        refuse(`part ${i} raw is not canonical base64 (never a data URL)`);
      return;
    }
    if ('url' in part) {
      let url: URL | undefined;
      try {
        url = new URL(String(part['url']));
      } catch {
        url = undefined;
      }
      if (!url || url.protocol !== 'https:' || url.username !== '' || url.password !== '') refuse(`part ${i} url is not an HTTPS URL without credentials`);
      return;
    }
    if ('file' in part) {
      const ok = Number.isSafeInteger(part['bytes']) && (part['bytes'] as number) >= 0 && typeof part['filename'] === 'string' && part['filename'] !== '';
      if (!ok) refuse(`part ${i} retained file needs bytes (a nonnegative safe integer) and a nonempty filename`);
      return;
    }
    refuse(`part ${i} has no text, data, raw, url or file`);
  });
}
