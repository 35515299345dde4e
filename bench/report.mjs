#!/usr/bin/env node
// Renders a saved harness result again: `node bench/report.mjs RESULT.json [--markdown | --targets]`
// (RESULT.json from `npm run bench -- --json > RESULT.json` or `--json-out RESULT.json`).
import { readFileSync } from 'node:fs';
import { renderMarkdown, renderTargetsMarkdown, renderText } from './lib/render.mjs';

const USAGE = 'usage: node bench/report.mjs RESULT.json [--markdown | --targets]\n';
const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith('-'));
const files = args.filter((a) => !a.startsWith('-'));
const unknown = flags.filter((f) => f !== '--markdown' && f !== '--targets');
if (flags.includes('--help') || flags.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (files.length !== 1 || unknown.length > 0) {
  process.stderr.write(unknown.length > 0 ? `unknown option ${unknown[0]}\n${USAGE}` : USAGE);
  process.exit(2);
}
let result;
try {
  result = JSON.parse(readFileSync(files[0], 'utf8'));
} catch (error) {
  process.stderr.write(`cannot read ${files[0]}: ${error.code === 'ENOENT' ? 'no such file' : error.message}\n`);
  process.exit(1);
}
if (!result || typeof result !== 'object' || !result.sections) {
  process.stderr.write(`${files[0]} is not a result of \`npm run bench -- --json\` (no "sections")\n`);
  process.exit(1);
}
process.stdout.write(flags.includes('--targets') ? renderTargetsMarkdown(result) : flags.includes('--markdown') ? renderMarkdown(result) : renderText(result));
