#!/usr/bin/env node
// `npm run demo`: builds the example package with Rollup, Vite, esbuild, webpack, Rspack and the
// CLI, shows that the six bundles are byte-identical, runs the agent with the embedded deterministic
// model provider, shows what the checker says about a broken package, and ends with a two-message
// chat with a conversational agent.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const manifest = path.join(root, 'fixtures/notebook/plugin.json');
const temp = mkdtempSync(path.join(os.tmpdir(), 'berrypack-demo-'));
const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[22m` : s);
const say = (s) => process.stdout.write(`\n${bold(s)}\n`);
const fail = (s) => {
  process.stderr.write(`demo: ${s}\n`);
  process.exitCode = 1;
};

const { run } = await import('../packages/cli/dist/index.js');
const { default: rollupPlugin } = await import('../packages/rollup/dist/index.js');
const { default: esbuildPlugin } = await import('../packages/esbuild/dist/index.js');
const { default: webpackPlugin } = await import('../packages/webpack/dist/index.js');

try {
  say('$ berrypack check fixtures/notebook/plugin.json');
  if ((await run(['check', 'fixtures/notebook/plugin.json'])) !== 0) fail('the example package should check clean');

  const entry = path.join(temp, 'main.js');
  writeFileSync(entry, `import notebook from ${JSON.stringify(manifest)};\nexport default notebook;\n`);
  const ids = {};

  const { rollup } = await import('rollup');
  const rolled = await rollup({ input: entry, plugins: [rollupPlugin()], logLevel: 'silent' });
  const rolledOut = await rolled.generate({ format: 'es' });
  ids.rollup = idOf(rolledOut.output.find((o) => o.type === 'asset' && o.fileName.endsWith('.berry.json')).source);
  await rolled.close();

  const { build: viteBuild } = await import('vite');
  const vite = await viteBuild({
    root: temp,
    logLevel: 'silent',
    configFile: false,
    plugins: [rollupPlugin()],
    build: { write: false, lib: { entry, formats: ['es'], fileName: 'main' } },
  });
  const viteOut = (Array.isArray(vite) ? vite[0] : vite).output;
  ids.vite = idOf(viteOut.find((o) => o.type === 'asset' && o.fileName.endsWith('.berry.json')).source);

  const esbuild = await import('esbuild');
  const built = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    outdir: path.join(temp, 'esbuild'),
    write: false,
    plugins: [esbuildPlugin()],
    logLevel: 'silent',
  });
  ids.esbuild = idOf(built.outputFiles.find((f) => f.path.endsWith('.berry.json')).contents);

  const { default: webpack } = await import('webpack');
  const { rspack } = await import('@rspack/core');
  for (const [tool, create] of [
    ['webpack', webpack],
    ['rspack', rspack],
  ]) {
    const outDir = path.join(temp, tool);
    const config = {
      mode: 'production',
      context: temp,
      entry,
      target: 'node',
      devtool: false,
      output: { path: outDir },
      infrastructureLogging: { level: 'none' },
      plugins: [webpackPlugin()],
    };
    const compiler = create(config);
    const ok = await new Promise((resolve) => compiler.run((error, stats) => resolve(!error && stats && !stats.hasErrors())));
    await new Promise((resolve) => compiler.close(resolve));
    if (!ok) fail(`the ${tool} build failed`);
    const name = readdirSync(outDir).find((f) => f.endsWith('.berry.json'));
    if (name) ids[tool] = idOf(readFileSync(path.join(outDir, name)));
    else fail(`the ${tool} build emitted no bundle`);
  }

  const outDir = path.join(temp, 'cli');
  const cliIo = { stdout: { write: () => true }, stderr: process.stderr, cwd: root, env: process.env };
  if ((await run(['build', 'fixtures/notebook', '--out-dir', outDir], cliIo)) !== 0) fail('berrypack build failed');
  const bundleFile = path.join(
    outDir,
    readdirSync(outDir).find((f) => f.endsWith('.berry.json')),
  );
  ids.cli = idOf(readFileSync(bundleFile));

  say('bundle ids of fixtures/notebook');
  for (const [tool, id] of Object.entries(ids)) process.stdout.write(`  ${tool.padEnd(8)} ${id}\n`);
  if (new Set(Object.values(ids)).size !== 1) fail('the bundlers disagree');
  else process.stdout.write('  ✔ identical from every entry point\n');

  {
    say(
      '$ berrypack run <bundle> --agent notebook --script fixtures/runtime/scripts/notebook.json --input \'{"message":"Note: buy oat milk. Which notes mention milk?"}\'',
    );
    const code = await run([
      'run',
      bundleFile,
      '--agent',
      'notebook',
      '--script',
      'fixtures/runtime/scripts/notebook.json',
      '--input',
      '{"message":"Note: buy oat milk. Which notes mention milk?"}',
    ]);
    if (code !== 0) fail('the agent run failed');
  }

  say('$ berrypack check fixtures/broken/colon-trap   (a broken package is refused)');
  if ((await run(['check', 'fixtures/broken/colon-trap'])) !== 1) fail('the broken fixture should be refused');

  {
    const messages = ['hello', 'which notes mention milk?'];
    say(`$ printf '${messages.join('\\n')}\\n' | berrypack chat fixtures/conversation --agent assistant --script fixtures/runtime/scripts/conversation.json`);
    const { Readable } = await import('node:stream');
    const chatIo = { stdout: process.stdout, stderr: process.stderr, cwd: root, env: process.env, stdin: Readable.from(messages.map((m) => `${m}\n`)) };
    // The answers stream back turn by turn; the conversation keeps its context between them.
    if ((await run(['chat', 'fixtures/conversation', '--agent', 'assistant', '--script', 'fixtures/runtime/scripts/conversation.json'], chatIo)) !== 0)
      fail('the chat failed');
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
if (!process.exitCode) say('demo finished');

function idOf(bytes) {
  return JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8')).id;
}
