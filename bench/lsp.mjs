#!/usr/bin/env node
// Keystroke latency of `berrypack lsp --stdio` in a package of N routines (default 1,000),
// measured from a real LSP client over stdio, as an editor sees it (docs/editors.md).
//
//   npm run bench:lsp                 N = 1,000, 40 keystrokes
//   npm run bench:lsp -- --n 10000 --edits 20 --json
//
// Per keystroke (a didChange of one routine, alternately breaking and fixing an include so the
// diagnostics change each time): `completion` is the time to answer a completion request sent
// right after the change (what typing waits for; budget: one 16 ms frame); `diagnostics` is
// the time until the package's new diagnostics for that document arrive, minus the server's
// debounce (the package check itself). Medians with min and max.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createProtocolConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver-protocol/node.js';
import { generatePackage } from './generate.mjs';
import { summarize } from './lib/stats.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const N = opt('--n', 1000);
const EDITS = opt('--edits', 40);
const DEBOUNCE_MS = 150; // packages/cli/src/lsp/server.ts

const dir = mkdtempSync(path.join(os.tmpdir(), 'berrypack-bench-lsp-'));
try {
  generatePackage(dir, N);
  const child = spawn(process.execPath, [path.join(ROOT, 'packages/cli/bin/berrypack.js'), 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  let onDiagnostics = () => {};
  const latest = new Map();
  connection.onNotification('textDocument/publishDiagnostics', (p) => {
    latest.set(p.uri, p.diagnostics);
    onDiagnostics(p);
  });
  connection.listen();
  await connection.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(dir).href, capabilities: {} });
  await connection.sendNotification('initialized', {});

  const file = findModelRoutine(dir);
  const uri = pathToFileURL(file).href;
  const text = readFileSync(file, 'utf8');
  const waitFor = (ok) =>
    new Promise((resolve) => {
      onDiagnostics = (p) => {
        if (p.uri === uri && ok(p.diagnostics)) resolve(performance.now());
      };
    });

  const t0 = performance.now();
  const opened = waitFor(() => true);
  await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'markdown', version: 1, text } });
  const firstCheck = (await opened) - t0;

  const completion = [];
  const diagnostics = [];
  const fence = text.indexOf('\n---\n') + 5;
  const position = lineAt(text, fence);
  for (let i = 0; i < EDITS; i++) {
    const broken = i % 2 === 0;
    // The fixed text escapes the marker (TPL-5): the line stays, so completion has a `{{` to answer.
    const edited = text.slice(0, fence) + (broken ? `{{no.such${i}}}\n` : `\\{{no.such${i}}}\n`) + text.slice(fence);
    const arrived = waitFor((d) => (broken ? d.some((x) => x.code === 'BP2201') : !d.some((x) => x.code === 'BP2201')));
    const start = performance.now();
    await connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: i + 2 }, contentChanges: [{ text: edited }] });
    const items = await connection.sendRequest('textDocument/completion', {
      textDocument: { uri },
      position: { line: position.line, character: broken ? 2 : 3 },
    });
    if (!Array.isArray(items)) throw new Error('completion gave no list');
    completion.push(performance.now() - start);
    diagnostics.push((await arrived) - start - DEBOUNCE_MS);
  }
  await connection.sendRequest('shutdown');
  await connection.sendNotification('exit');
  connection.dispose();
  const result = {
    n: N,
    edits: EDITS,
    firstCheckMs: Math.round(firstCheck),
    completionMs: summarize(completion),
    diagnosticsAfterDebounceMs: summarize(diagnostics),
  };
  if (args.includes('--json')) process.stdout.write(JSON.stringify(result) + '\n');
  else {
    const f = (s) => `${s.median.toFixed(1)} ms (min ${s.min.toFixed(1)}, max ${s.max.toFixed(1)})`;
    process.stdout.write(
      `berrypack lsp, ${N} routines, ${EDITS} keystrokes\n  first package check on open: ${result.firstCheckMs} ms\n  completion after a keystroke: ${f(result.completionMs)}\n  package diagnostics after the ${DEBOUNCE_MS} ms debounce: ${f(result.diagnosticsAfterDebounceMs)}\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function findModelRoutine(root) {
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || !e.name.endsWith('.md')) continue;
    const full = path.join(e.parentPath, e.name);
    const text = readFileSync(full, 'utf8');
    if (/^model:/m.test(text)) return full;
  }
  throw new Error('no model routine in the generated package');
}

function lineAt(text, offset) {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length - 1 };
}
