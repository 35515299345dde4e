#!/usr/bin/env node
// Regenerates the table in docs/rules-coverage.md: every rule ID of the catalogue with the
// diagnostic codes that enforce it and the test files that name it. The decisions below the
// table are written by hand. Usage: npm run coverage-doc (needs ../shared/spec/rules.md).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rulesFile = process.env.BERRYPACK_RULES ?? path.resolve(root, '../shared/spec/rules.md');
const { CODES } = await import('../packages/compiler/dist/index.js');

const rules = [...readFileSync(rulesFile, 'utf8').matchAll(/^\| ([A-Z]+-\d+) \| (.*) \|$/gm)].map((m) => ({ id: m[1], text: m[2] }));

const testFiles = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
    const full = path.join(dir, e.name);
    if (e.isDirectory()) walk(full);
    else if (/\.test\.ts$/.test(e.name)) testFiles.push(full);
  }
};
walk(path.join(root, 'test'));
walk(path.join(root, 'packages'));
const testText = new Map(testFiles.map((f) => [path.relative(root, f).split(path.sep).join('/'), readFileSync(f, 'utf8')]));

const rows = ['| rule | codes | tests |', '|---|---|---|'];
for (const { id } of rules) {
  const codes = Object.entries(CODES)
    .filter(([, info]) => info.rule === id)
    .map(([code]) => code);
  const re = new RegExp(`\\b${id}\\b`);
  const tests = [...testText].filter(([, text]) => re.test(text)).map(([file]) => file);
  const codeCell = codes.length ? codes.map((c) => `[${c}](diagnostics.md#${c.toLowerCase()})`).join(' ') : '—';
  const testCell = tests.length ? tests.map((t) => `\`${t}\``).join(' ') : '—';
  rows.push(`| ${id} | ${codeCell} | ${testCell} |`);
}
const doc = path.join(root, 'docs/rules-coverage.md');
const current = readFileSync(doc, 'utf8');
const start = '<!-- coverage-table:start -->';
const end = '<!-- coverage-table:end -->';
const next = current.slice(0, current.indexOf(start) + start.length) + '\n' + rows.join('\n') + '\n' + current.slice(current.indexOf(end));
writeFileSync(doc, next);
console.log(`rules-coverage: ${rules.length} rules, table written to docs/rules-coverage.md`);
