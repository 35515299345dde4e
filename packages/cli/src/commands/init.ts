import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CliIo } from '../io.js';
import { parse, stringOption } from '../options.js';
import { displayPath } from '../paths.js';
import { terminalSafe as safe } from '../terminal-safe.js';
import { UsageError } from '../usage-error.js';

export const INIT_HELP = `Usage: berrypack init [DIR] [--name NAME]

Creates a new Berry package in DIR (default: the current directory; created if missing):
plugin.json with one agent, a model routine (routines/greet.md) whose answer goes through
\`next\` to a code routine (routines/count.md), answers.json (scripted model answers) and a
runtime.yaml whose \`models:\` answers from them, so it builds and runs at once:

  berrypack build DIR --out-dir dist
  berrypack run DIR --agent greeter --input '{"name":"Ada"}'

NAME is the package name (default: local.<DIR's name>). Nothing is overwritten: an existing
plugin.json or routines/ folder in DIR is a usage error.
`;

const PACKAGE_NAME = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/;

export function initCommand(args: string[], io: CliIo): number {
  const { values, positionals } = parse(args, { name: { type: 'string' } });
  if (values.help) {
    io.stdout.write(INIT_HELP);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`Unexpected ${positionals.length} arguments, expected at most one DIR (see berrypack init --help)`);
  const dir = path.resolve(io.cwd, positionals[0] ?? '.');
  const name =
    stringOption(values, 'name') ??
    `local.${
      path
        .basename(dir)
        .toLowerCase()
        .replace(/[^a-z0-9-]+/g, '-')
        .replace(/^-+|-+$/g, '') || 'plugin'
    }`;
  if (!PACKAGE_NAME.test(name))
    throw new UsageError(`Unexpected --name ${name}, expected lowercase letters, digits and \`-\` in dot-separated segments, such as \`example.notebook\``);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`Unexpected DIR ${displayPath(dir, io.cwd)}: it is a file, expected a directory`);
  const taken = FILES.map(([file]) => file.split('/')[0]!).filter((first) => existsSync(path.join(dir, first)));
  if (taken.length > 0) {
    throw new UsageError(`Unexpected ${[...new Set(taken)].join(', ')} in ${displayPath(dir, io.cwd)}, expected none: berrypack init never overwrites`);
  }
  const before = existsSync(dir) ? readdirSync(dir).length : 0;
  mkdirSync(path.join(dir, 'routines'), { recursive: true });
  for (const [file, text] of FILES) writeFileSync(path.join(dir, file), text(name), { flag: 'wx' });
  const shown = displayPath(dir, io.cwd);
  const lines = [
    `created ${shown}${before === 0 ? '' : ' (beside what was there)'}: ${FILES.map(([file]) => file).join(', ')}`,
    '',
    'Next:',
    `  berrypack check ${shown}`,
    `  berrypack build ${shown} --out-dir dist`,
    `  berrypack run ${shown} --agent greeter --input '{"name":"Ada"}'`,
  ];
  io.stdout.write(lines.map((line) => safe(line) + '\n').join(''));
  return 0;
}

const FILES: readonly (readonly [string, (name: string) => string])[] = [
  [
    'plugin.json',
    (name) =>
      JSON.stringify(
        {
          $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
          name,
          version: '1',
          extensions: {
            'ai.strawberry.berry': {
              sources: 'routines',
              agents: { greeter: { title: 'Greeter', description: 'Greets a person by name and counts the words of the greeting.', entry: 'greet' } },
              exports: ['greet'],
            },
          },
        },
        null,
        2,
      ) + '\n',
  ],
  [
    'routines/greet.md',
    () => `---
name: greet
visibility: public
description: Greets a person by name.
model:
  select:
    operation: generation
input:
  type: object
  required:
    - name
  properties:
    name:
      type: string
      description: The name of the person to greet.
output:
  type: object
  required:
    - text
  properties:
    text:
      type: string
next:
  to: count
  input:
    text: $.output.text
---
Greet {{ $.input.name }} warmly in one short sentence.
`,
  ],
  [
    'routines/count.md',
    () => `---
name: count
description: Counts the words of a greeting.
language: javascript
input:
  type: object
  required:
    - text
  properties:
    text:
      type: string
output:
  type: object
  required:
    - text
    - words
  properties:
    text:
      type: string
    words:
      type: integer
      minimum: 0
---
export default function count({ text }) {
  return { text, words: text.split(/\\s+/).filter(Boolean).length };
}
`,
  ],
  [
    'runtime.yaml',
    () => `# Read by \`berrypack run\`, \`chat\` and \`replay\` beside plugin.json or the bundle.
limits:
  timeoutMs: 30000
# Model routines answer from the scripted provider (offline, deterministic) with the answers
# in answers.json. Add a real model beside it and bind routines to it (docs/runtime.md,
# "Configured models and binding"), e.g.
#   local: {provider: openai-compatible, baseUrl: "http://127.0.0.1:11434/v1", model: "qwen2.5:0.5b"}
models:
  offline:
    provider: scripted
    script: answers.json
`,
  ],
  ['answers.json', () => JSON.stringify({ greet: [{ output: { text: 'Hello Ada, good to see you!' } }] }, null, 2) + '\n'],
];
