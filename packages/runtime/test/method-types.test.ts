import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkMethod } from '../../compiler/src/index.js';
import { runMethod, type CompiledMethod } from '../src/index.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'berrypack-method-types-'));
  dirs.push(dir);
  return dir;
}
function compile(yaml: string): CompiledMethod {
  const checked = checkMethod('/m/types.method.yaml', `format: method/2\nname: types\ngoal: Exercise MTH-3 types.\n${yaml}`);
  if (!checked.method) throw new Error(checked.diagnostics.map((d) => `${d.code} ${d.line}:${d.column} ${d.message}`).join('\n'));
  return checked.method;
}

/**
 * MTH-3 decision: inside `fields` and `items` a bare type name (`name: text`) and a nested
 * declaration (`name: {type: text}`) mean the same type. The same document is written both
 * ways; the runner validates inputs, state and outputs of those types identically.
 */
const FORMS = {
  bare: `
inputs:
  team:
    type: record
    description: The team.
    fields:
      name: text
      members: {type: list, fields: {handle: text, tags: {type: list, items: text}}}
state:
  scores:
    type: list
    description: Scores so far.
    file: scores.json
    items: {type: record, fields: {handle: text, points: number}}
steps:
  rank:
    in: {team: inputs.team, scores: state.scores}
    do: Rank the members of {{team.name}}.
    out:
      ranking:
        type: list
        description: Handles, best first, with a flag per member.
        items: {type: list, items: boolean}
result: ranking
`,
  nested: `
inputs:
  team:
    type: record
    description: The team.
    fields:
      name: {type: text}
      members: {type: list, fields: {handle: {type: text}, tags: {type: list, items: {type: text}}}}
state:
  scores:
    type: list
    description: Scores so far.
    file: scores.json
    items: {type: record, fields: {handle: {type: text}, points: {type: number}}}
steps:
  rank:
    in: {team: inputs.team, scores: state.scores}
    do: Rank the members of {{team.name}}.
    out:
      ranking:
        type: list
        description: Handles, best first, with a flag per member.
        items: {type: list, items: {type: boolean, description: A flag.}}
result: ranking
`,
};

const TEAM = { name: 'Core', members: [{ handle: 'ada', tags: ['lead'] }] };

describe('MTH-3 types through the runner: bare names and nested declarations', () => {
  for (const [form, yaml] of Object.entries(FORMS)) {
    const method = compile(yaml);
    const run = async (options: { team?: unknown; scores?: string; ranking?: unknown }) => {
      const dir = dataDir();
      writeFileSync(path.join(dir, 'scores.json'), options.scores ?? '[{"handle": "ada", "points": 3}]');
      return runMethod(method, {
        dataDir: dir,
        inputs: { team: options.team ?? TEAM },
        executor: () => ({ output: { ranking: options.ranking ?? [[true], []] } }),
      });
    };

    it(`${form}: values of every nesting level validate`, async () => {
      expect(await run({})).toMatchObject({ status: 'completed', result: [[true], []] });
    });

    it(`${form}: a wrong input at a nested level fails the run before any step`, async () => {
      const r = await run({ team: { name: 'Core', members: [{ handle: 'ada', tags: [1] }] } });
      expect(r.status).toBe('failed');
      expect(r.error).toEqual({ code: 'invalid-inputs', message: 'Unexpected inputs: input `team`.members[0].tags[0] must be text, not number 1' });
      const extra = await run({ team: { name: 'Core', members: [{ handle: 'ada', tags: [], role: 'x' }] } });
      expect(extra.error?.message).toBe('Unexpected inputs: input `team`.members[0] has the field `role`, which is not declared (declared: `handle`, `tags`)');
    });

    it(`${form}: a state of the wrong shape fails the run before any step`, async () => {
      const r = await run({ scores: '[{"handle": "ada"}]' });
      expect(r.error).toEqual({
        code: 'state-invalid',
        message: 'Unexpected state in scores.json: state `scores`[0] lacks the field `points` (all declared fields are required)',
      });
    });

    it(`${form}: an output of the wrong shape fails its step`, async () => {
      const r = await run({ ranking: [[true], ['yes']] });
      expect(r).toMatchObject({ status: 'failed', steps: { rank: 'failed' } });
      expect(r.error).toEqual({
        code: 'invalid-output',
        message: 'Step `rank` failed: Unexpected output: the output of step `rank`.ranking[1][0] must be true or false, not text',
      });
    });
  }

  it('both forms compile to the same types', () => {
    const [bare, nested] = [compile(FORMS.bare), compile(FORMS.nested)];
    expect(bare.inputs).toEqual(nested.inputs);
    expect(bare.state).toEqual(nested.state);
    const strip = (t: unknown): unknown => JSON.parse(JSON.stringify(t).replace(/,"description":"A flag."/, ''));
    expect(bare.steps['rank']!.out).toEqual(strip(nested.steps['rank']!.out));
  });
});
