import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ApiMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

/**
 * A deterministic OpenAI-compatible model on 127.0.0.1: it reads the instructions and the
 * conversation like an agent would and answers with tool calls, then with the outputs. As
 * reviewer (the judge), it passes a reply check only when the evidence shows the label and
 * the comment written through the tracker's tools.
 */
function answer(body: { messages: ApiMessage[] }): ApiMessage {
  const [system, user, ...rest] = body.messages;
  const instructions = system!.content ?? '';
  // An MCP server's structured result wraps a list (`{tickets: […]}`); in-process tools return it bare.
  const results = rest
    .filter((m) => m.role === 'tool')
    .map((m) => JSON.parse(m.content ?? 'null') as unknown)
    .map((r) => (r !== null && typeof r === 'object' && 'tickets' in r ? (r as { tickets: unknown }).tickets : r));
  const call = (name: string, args: unknown): ApiMessage => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `c${rest.length}`, function: { name, arguments: JSON.stringify(args) } }],
  });
  const final = (value: unknown): ApiMessage => ({ role: 'assistant', content: JSON.stringify(value) });
  if (instructions.startsWith('You are an independent reviewer')) {
    const { changes } = JSON.parse(user!.content ?? '{}') as { changes: Record<string, { writes?: { tool: string }[]; before?: string[]; after?: string[] }> };
    const writes = changes['environment.tracker']?.writes ?? [];
    if (instructions.includes('The ticket carries exactly the returned label')) {
      const done = ['tracker.label', 'tracker.comment'].every((t) => writes.some((w) => w.tool === t));
      return final(
        done
          ? { verdict: 'passed', reason: 'The label and the comment were written through the tracker.' }
          : { verdict: 'ambiguous', reason: 'No write to the tracker was observed.' },
      );
    }
    const { before = [], after = [] } = changes['state.triaged'] ?? {};
    const ok = before.every((id) => after.includes(id)) && new Set(after).size === after.length;
    return final({ verdict: ok ? 'passed' : 'failed', reason: ok ? 'Every id is kept once.' : 'Ids were lost or repeated.' });
  }
  if (instructions.startsWith('Search')) {
    if (results.length === 0) return call('tracker_search', { since: /on or after (\S+)\./.exec(instructions)![1] });
    const done = JSON.parse(/whose ids are in (\[.*?\])\./.exec(instructions)![1]!) as string[];
    return final({ tickets: (results[0] as { id: string }[]).filter((t) => !done.includes(t.id)) });
  }
  if (instructions.startsWith('Ticket')) {
    const id = /^Ticket (\S+)/.exec(instructions)![1]!;
    const label = /crash/i.test(instructions) ? 'bug' : /charged/i.test(instructions) ? 'billing' : 'question';
    if (results.length === 0) return call('tracker_label', { id, label });
    if (results.length === 1) return call('tracker_comment', { id, text: 'Thanks for telling us. We are looking into it and will write again here.' });
    return final({ triage: { ticket: id, label, comment_url: (results[1] as { url: string }).url } });
  }
  const [done, triage] = [
    JSON.parse(/ids in (\[.*?\]) followed/.exec(instructions)![1]!) as string[],
    JSON.parse(/entry of (\[.*\]), without/.exec(instructions)![1]!) as { ticket: string }[],
  ];
  return final({ 'state.triaged': [...new Set([...done, ...triage.map((t) => t.ticket)])] });
}

/**
 * The triage model on 127.0.0.1 port 0 (see `answer`): its `/v1` base URL, the tool names each
 * request offered and the Authorization headers it saw, and `close`.
 */
export async function startTriageModel(): Promise<{ baseUrl: string; requests: { tools: string[]; authorization?: string }[]; close(): Promise<void> }> {
  const requests: { tools: string[]; authorization?: string }[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => {
      const body = JSON.parse(text) as { messages: ApiMessage[]; tools?: { function: { name: string } }[] };
      requests.push({
        tools: (body.tools ?? []).map((t) => t.function.name),
        ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
      });
      const message = answer(body);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'x', choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
