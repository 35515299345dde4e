import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCompiler } from '../../compiler/src/index.js';
import {
  createProviderExecutor,
  createRoutineExecutor,
  createRuntime,
  loadBundle,
  readMethodRun,
  runMethod,
  type CompiledMethod,
  type GenerationRequest,
  type ModelProvider,
} from '../src/index.js';
import { compileMethod } from '../../../test/support/method.js';
import { tempDir as tempFolder } from '../../../test/support/temp.js';

const tempDir = (): string => tempFolder('berrypack-method-exec-');
const compile = (doc: Record<string, unknown>): CompiledMethod => compileMethod(doc, 'Exercise executors.');
const text = { type: 'text', description: 'Some text.' };
const method = compile({
  inputs: { names: { type: 'list', description: 'Names.', items: text } },
  state: { seen: { type: 'number', description: 'How many were greeted.', file: 'seen.json', default: 0 } },
  steps: {
    greet: { each: { name: 'inputs.names' }, do: 'Greet {{name}}.', out: { greeting: text } },
    tally: { in: { all: 'greeting' }, do: 'Count {{all}}.', changes: ['state.seen'] },
  },
  result: { Greetings: 'greeting', Seen: 'state.seen' },
});

describe('method executors (MTH-18)', () => {
  it('MTH-18: the scripted provider answers invocation n of a step with its n-th response; state replacements are `state.NAME` keys', async () => {
    const executor = createProviderExecutor({
      script: { greet: [{ output: { greeting: 'Hi Ada' } }, { output: { greeting: 'Hi Cy' } }], tally: [{ output: { 'state.seen': 2 } }] },
    });
    const result = await runMethod(method, { dataDir: tempDir(), executor, inputs: { names: ['Ada', 'Cy'] } });
    expect(result).toMatchObject({ status: 'completed', result: { Greetings: ['Hi Ada', 'Hi Cy'], Seen: 2 } });
  });

  it('MTH-18: a provider gets the step as the routine, its substituted instructions, its inputs and its outputs as structured output', async () => {
    const requests: GenerationRequest[] = [];
    const provider: ModelProvider = {
      async generate(request) {
        requests.push(request);
        return request.routine === 'greet' ? { text: JSON.stringify({ greeting: `Hello ${request.sequence}` }) } : { output: { 'state.seen': 1 } };
      },
    };
    const dir = tempDir();
    const result = await runMethod(method, {
      dataDir: dir,
      executor: createProviderExecutor({ provider, binding: { provider: 'custom', model: 'm' } }),
      inputs: { names: ['Ada'] },
    });
    expect(result).toMatchObject({ status: 'completed', result: { Greetings: ['Hello 0'], Seen: 1 } });
    expect(requests[0]).toMatchObject({
      routine: 'greet',
      sequence: 0,
      connection: { provider: 'custom', model: 'm' },
      instructions: 'Greet Ada.',
      tools: [],
      messages: [{ role: 'user', content: '{"inputs":{"name":"Ada"},"item":{"index":0,"value":"Ada"}}' }],
    });
    expect(requests[0]!.output).toEqual({
      type: 'object',
      properties: { greeting: { type: 'string', description: 'Some text.' } },
      required: ['greeting'],
      additionalProperties: false,
    });
    expect(requests[1]!.output).toEqual({
      type: 'object',
      properties: { 'state.seen': { type: 'number', description: 'How many were greeted.' } },
      required: ['state.seen'],
      additionalProperties: false,
    });
  });

  it('MTH-18: a provider asking for tool calls fails the step: a method step is offered no tools', async () => {
    const provider: ModelProvider = { generate: async () => ({ toolCalls: [{ id: 'c', name: 'x', input: {} }] }) };
    const result = await runMethod(method, { dataDir: tempDir(), executor: createProviderExecutor({ provider }), inputs: { names: ['Ada'] } });
    expect(result).toMatchObject({ status: 'failed', error: { code: 'provider-failed' } });
  });

  it('MTH-18: a routine of a prepared bundle can do the steps', async () => {
    const pkg = tempDir();
    mkdirSync(path.join(pkg, 'routines'));
    writeFileSync(
      path.join(pkg, 'plugin.json'),
      JSON.stringify({
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: 'method.steps',
        version: '1',
        extensions: { 'ai.strawberry.berry': { sources: 'routines', exports: ['steps.act'] } },
      }),
    );
    writeFileSync(
      path.join(pkg, 'routines', 'act.md'),
      [
        '---',
        'name: steps.act',
        'description: Does one method step.',
        'language: javascript',
        '---',
        'export default async function act(input) {',
        "  if (input.step === 'greet') return { greeting: 'Hello ' + input.item.value + ' (' + input.instructions + ')' };",
        "  return { 'state.seen': input.inputs.all.length };",
        '}',
      ].join('\n'),
    );
    const built = createCompiler({}).build(path.join(pkg, 'plugin.json'));
    expect(built.ok).toBe(true);
    const runtime = createRuntime();
    try {
      const bundle = await loadBundle(built.bundle!.bytes, { blobs: built.bundle!.blobs });
      const executor = createRoutineExecutor({ runtime, preparation: runtime.prepare(bundle), target: { export: 'steps.act' } });
      const dir = tempDir();
      const result = await runMethod(method, { dataDir: dir, executor, inputs: { names: ['Ada', 'Cy'] } });
      expect(result).toMatchObject({ status: 'completed', result: { Greetings: ['Hello Ada (Greet Ada.)', 'Hello Cy (Greet Cy.)'], Seen: 2 } });
      expect(readMethodRun(result.runId, { dataDir: dir }).record.steps['tally']!.changes).toMatchObject({ 'state.seen': { before: 0, after: 2 } });
    } finally {
      await runtime.close();
    }
  });
});
