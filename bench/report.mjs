#!/usr/bin/env node
// Renders a saved harness result again: `node bench/report.mjs RESULT.json [--markdown | --targets]`
// (RESULT.json from `npm run bench -- --json > RESULT.json` or `--json-out RESULT.json`).
import { readFileSync } from 'node:fs';
import { renderMarkdown, renderTargetsMarkdown, renderText } from './lib/render.mjs';

const [file, ...flags] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/report.mjs RESULT.json [--markdown | --targets]\n');
  process.exit(2);
}
const result = JSON.parse(readFileSync(file, 'utf8'));
process.stdout.write(flags.includes('--targets') ? renderTargetsMarkdown(result) : flags.includes('--markdown') ? renderMarkdown(result) : renderText(result));
