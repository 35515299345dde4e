// Generates a realistic synthetic plugin package: N routines of about 1.5 KB with a
// 25-line frontmatter, N/10 code routines over shared supporting modules, and resources.
// Deterministic: the same N gives the same files.
// Code is sized so that N = 10,000 (1,000 code routines, 100 lib modules, about 0.7 MB of code)
// stays under the 1 MiB packaged-code limit (CODE-6, BP3050): the package must build at every N.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function prng(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32;
}

const WORDS = 'note task idea draft review summary answer search rank index report plan goal source evidence order'.split(' ');

export function generatePackage(dir, n) {
  const rand = prng(n);
  const pick = (a) => a[Math.floor(rand() * a.length)];
  const sentence = (k) => Array.from({ length: k }, () => pick(WORDS)).join(' ');
  const namespaces = Math.max(1, Math.floor(n / 100));
  const libCount = Math.max(1, Math.floor(n / 100));
  const files = [];
  const write = (rel, text) => {
    const full = path.join(dir, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
    files.push(rel);
  };
  write(
    'plugin.json',
    JSON.stringify(
      {
        $schema: 'https://agent-plugins.org/schemas/1.0.0/plugin.schema.json',
        name: `bench.pkg-${n}`,
        version: '1',
        extensions: {
          'ai.strawberry.berry': {
            sources: 'routines',
            agents: { main: { title: 'Main', description: 'Entry point of the benchmark package.', entry: 'ns0.model0' } },
            resources: Array.from({ length: Math.max(1, Math.floor(n / 100)) }, (_, i) => ({
              uri: `asset://bench/r${i}`,
              mimeType: 'text/plain',
              path: `assets/r${i}.txt`,
            })),
          },
        },
      },
      null,
      2,
    ),
  );
  for (let i = 0; i < Math.max(1, Math.floor(n / 100)); i++) write(`assets/r${i}.txt`, sentence(200));
  for (let i = 0; i < libCount; i++) {
    write(
      `routines/lib/m${i}.js`,
      `/** Shared helper ${i}. */\nexport function score${i}(text, words) {\n  let s = 0;\n  for (const w of words) if (text.includes(w)) s += ${i + 1};\n  return s / Math.max(1, words.length);\n}\n\nexport const LABEL_${i} = ${JSON.stringify(sentence(6))};\n` +
        `// ${sentence(30)}\n`.repeat(4),
    );
  }
  for (let i = 0; i < n; i++) {
    const ns = `ns${i % namespaces}`;
    const isCode = i % 10 === 9;
    const name = isCode ? `${ns}.code${i}` : `${ns}.model${i}`;
    const fm = ['---', `name: ${name}`, `title: ${sentence(3)}`, `description: ${sentence(12)}`];
    if (isCode) {
      // Spread the code routines over the lib modules (i % libCount would put every one on the same
      // module, since code routines are every tenth routine): each lib module has ~10 importers.
      const lib = Math.floor(i / 10) % libCount;
      fm.push(
        'language: javascript',
        'input:',
        '  type: object',
        '  required:',
        '    - text',
        '  properties:',
        '    text:',
        '      type: string',
        '    words:',
        '      type: array',
        '      items:',
        '        type: string',
        'output:',
        '  type: object',
        '  required:',
        '    - score',
        '  properties:',
        '    score:',
        '      type: number',
        '    label:',
        '      type: string',
        '---',
      );
      const body =
        `import { score${lib}, LABEL_${lib} } from '../lib/m${lib}.js';\n\n/** ${sentence(20)} */\nexport default function run(input) {\n  const words = input.words ?? input.text.split(/\\s+/);\n  return { score: score${lib}(input.text, words), label: LABEL_${lib} };\n}\n` +
        `// ${sentence(25)}\n`.repeat(2);
      write(`routines/${ns}/code${i}.md`, fm.join('\n') + '\n' + body);
    } else {
      const target = Math.floor(i / 10) * 10 + 9;
      const hasTarget = target < n;
      const codeTarget = `ns${target % namespaces}.code${target}`;
      fm.push(
        'model:',
        '  select:',
        '    operation: generation',
        '  max_output_tokens: 2000',
        'input:',
        '  type: object',
        '  required:',
        '    - goal',
        '  properties:',
        '    goal:',
        '      type: string',
        '      description: What to achieve.',
        'output:',
        '  type: object',
        '  required:',
        '    - answer',
        '  properties:',
        '    answer:',
        '      type: string',
      );
      fm.push(hasTarget ? `tools:\n  - ${codeTarget}` : 'tools: []');
      fm.push('---');
      const body = `You are routine ${i}. ${sentence(40)}\n\nGoal: {{ $.input.goal }}\n\n` + `${sentence(60)}\n\n`.repeat(3);
      write(`routines/${ns}/model${i}.md`, fm.join('\n') + '\n' + body);
    }
  }
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, n] = process.argv.slice(2);
  const count = Number(n);
  // A mistyped call must not write a package into a folder named after a flag.
  if (dir === undefined || dir.startsWith('-') || !Number.isInteger(count) || count < 1) {
    console.error('usage: node bench/generate.mjs DIR N   (writes a package of N routines into DIR)');
    process.exit(dir === '--help' || dir === '-h' ? 0 : 2);
  }
  const files = generatePackage(dir, count);
  console.log(`${files.length} files in ${dir}`);
}
