import { describe, expect, it } from 'vitest';
import { answerCall, type BridgeCall } from '../src/sandbox/host-bridge.js';
import type { ToWorker } from '../src/sandbox/protocol.js';
import { DEFAULT_SANDBOX_LIMITS, type SandboxHost, type SandboxInvocation } from '../src/sandbox/index.js';

/** A bridge call whose replies are recorded instead of posted to a worker. */
function bridge(callTool: SandboxHost['callTool']): { call: BridgeCall; sent: ToWorker[] } {
  const sent: ToWorker[] = [];
  const invocation = { limits: { ...DEFAULT_SANDBOX_LIMITS } } as SandboxInvocation;
  return { sent, call: { id: 3, invocation, host: { callTool }, tools: new Set(['t']), reply: (m) => sent.push(m) } };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the host bridge of a tool call', () => {
  it('sends the admission and an outcome that settles before the next turn as one answer', async () => {
    const { call, sent } = bridge(async (_name, input) => ({ callId: 'c1.1', executionId: null, outcome: Promise.resolve(input) }));
    answerCall(call, 1, 't', '{"i":4}');
    await nextTurn();
    await nextTurn();
    expect(sent).toEqual([{ t: 'answer', id: 3, seq: 1, callId: 'c1.1', executionId: null, ok: true, value: '{"i":4}' }]);
  });

  it('sends a failure that settles before the next turn with its admission too', async () => {
    const { call, sent } = bridge(async () => ({ callId: 'c1.2', executionId: 'e', outcome: Promise.reject({ code: 'limit-calls', message: 'too many' }) }));
    answerCall(call, 2, 't', undefined);
    await nextTurn();
    await nextTurn();
    expect(sent).toEqual([{ t: 'answer', id: 3, seq: 2, callId: 'c1.2', executionId: 'e', ok: false, code: 'limit-calls', message: 'too many' }]);
  });

  it('does not hold the admission of a call whose outcome comes later', async () => {
    let finish: (value: unknown) => void = () => undefined;
    const outcome = new Promise((resolve) => (finish = resolve));
    const { call, sent } = bridge(async () => ({ callId: 'c1.3', executionId: null, outcome }));
    answerCall(call, 3, 't', undefined);
    await nextTurn();
    await nextTurn();
    expect(sent).toEqual([{ t: 'admit', id: 3, seq: 3, ok: true, callId: 'c1.3', executionId: null }]);
    finish({ done: true });
    await nextTurn();
    expect(sent.slice(1)).toEqual([{ t: 'settle', id: 3, seq: 3, ok: true, value: '{"done":true}' }]);
  });

  it('takes an admission the host returns synchronously, and a synchronous throw as a refusal', async () => {
    const sync = bridge((_name, input) => ({ callId: 'c1.5', executionId: null, outcome: Promise.resolve(input) }));
    answerCall(sync.call, 5, 't', '7');
    const throwing = bridge(() => {
      throw { code: 'closed', message: 'the execution ended' };
    });
    answerCall(throwing.call, 6, 't', undefined);
    await nextTurn();
    expect(sync.sent).toEqual([{ t: 'answer', id: 3, seq: 5, callId: 'c1.5', executionId: null, ok: true, value: '7' }]);
    expect(throwing.sent).toEqual([{ t: 'admit', id: 3, seq: 6, ok: false, code: 'closed', message: 'the execution ended' }]);
  });

  it('refuses an unknown tool at once, with no admission', () => {
    const { call, sent } = bridge(async () => {
      throw new Error('not reached');
    });
    answerCall(call, 4, 'other', undefined);
    expect(sent).toEqual([{ t: 'admit', id: 3, seq: 4, ok: false, code: 'unknown-tool', message: "'other' is not a tool of this routine" }]);
  });
});
