// The packages as a user gets them: every workspace packed with `npm pack`, installed from the
// tarballs into a project outside the repository together with Rollup, Vite and esbuild (offline,
// from the npm cache `npm ci` filled, at the lockfile's versions), and the README's "In a
// Rollup, Vite or esbuild build" section followed literally there. CONTRACTS.md, Packaging.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import { publint } from 'publint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilerEntries } from '../scripts/bundle-compiler.mjs';
import { ROOT } from './support/cli.js';
import { npm, packWorkspaces, readmeSection, workspaces, writeProject, type Packed } from './support/pack-install.js';
import { cleanup, listFiles, tempDir } from './support/temp.js';

let root: string;
let project: string;
let packed: Packed[];
const env = { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false', NO_COLOR: '1' };

beforeAll(() => {
  root = tempDir('berrypack-install-');
  mkdirSync(path.join(root, 'packs'));
  project = path.join(root, 'project');
  mkdirSync(project);
  packed = packWorkspaces(path.join(root, 'packs'));
  // As the README's `npm init -y && npm pkg set type=module` leaves it.
  writeProject(project, packed, ['rollup', 'vite', 'esbuild'], { type: 'module' });
  npm(['ci', '--offline', '--ignore-scripts'], project);
  for (const [file, text] of readmeSection('In a Rollup, Vite, esbuild, webpack or Rspack build').files) {
    mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    writeFileSync(path.join(project, file), text);
  }
}, 600_000);
// Removing the installed project's node_modules takes long on a loaded machine.
afterAll(() => cleanup(root), 120_000);

function sh(command: string): { status: number | null; out: string } {
  const result = spawnSync('sh', ['-c', command], { cwd: project, env, encoding: 'utf8', timeout: 180_000 });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

describe('the tarballs', () => {
  it('are made from every workspace of the repository', () => {
    expect(packed.map((p) => path.relative(ROOT, p.dir).split(path.sep).join('/'))).toEqual(workspaces());
  });

  it('hold what runs and what types resolve to, a LICENSE and a README, and no sources, maps or build info', () => {
    for (const p of packed) {
      expect(p.files, p.name).toContain('LICENSE');
      expect(p.files, p.name).toContain('README.md');
      expect(
        p.files.filter((f) => /\.tsbuildinfo$|\.map$|^src\//.test(f) || /(^|\/)\.tsbuildinfo$/.test(f)),
        p.name,
      ).toEqual([]);
      expect(
        p.files.some((f) => f.endsWith('.d.ts')),
        p.name,
      ).toBe(true);
    }
  });

  it('name their repository and homepage, and their README links work on the registry page', () => {
    for (const p of packed) {
      const m = p.manifest as { repository?: { url?: string; directory?: string }; homepage?: string; license?: string; engines?: { node?: string } };
      expect(m.repository?.url, p.name).toMatch(/^git\+https:\/\/github\.com\/.+\.git$/);
      expect(m.repository?.directory, p.name).toBe(path.relative(ROOT, p.dir).split(path.sep).join('/'));
      expect(m.homepage, p.name).toMatch(/^https:\/\//);
      expect(m.license, p.name).toBe('MIT');
      expect(m.engines?.node, p.name).toBe('>=20.19');
      // A relative link resolves against the registry's page, where nothing of the repository is.
      const readme = readFileSync(path.join(p.dir, 'README.md'), 'utf8');
      const relative = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((href) => !/^(https?:|mailto:|#)/.test(href));
      expect(relative, p.name).toEqual([]);
    }
  });

  it('keep the versions of the packages in lockstep, and depend on each other at exactly that version', () => {
    const versions = new Set(packed.map((p) => p.version));
    expect(versions.size).toBe(1);
    const names = new Set(packed.map((p) => p.name));
    for (const p of packed) {
      for (const [dep, range] of Object.entries(p.manifest.dependencies ?? {})) if (names.has(dep)) expect(range, `${p.name} -> ${dep}`).toBe(p.version);
    }
  });

  it('carry the compiler once: no other package inlines its code', () => {
    for (const p of packed.filter((p) => p.name !== '@berrypack/compiler')) {
      const installed = path.join(project, 'node_modules', p.name);
      for (const file of p.files.filter((f) => f.endsWith('.js'))) {
        expect(readFileSync(path.join(installed, file), 'utf8'), `${p.name}/${file}`).not.toMatch(/function (canonicalJson|createCompiler)\b/);
      }
    }
    expect(readdirSync(path.join(project, 'node_modules', '@berrypack')).sort()).toEqual(
      packed
        .filter((p) => p.name.startsWith('@berrypack/'))
        .map((p) => p.name.slice('@berrypack/'.length))
        .sort(),
    );
  });

  it('run the bundled compiler: its dist/ is the build of scripts/bundle-compiler.mjs, and a plugin and the CLI in one process load one copy of it', () => {
    const compiler = packed.find((p) => p.name === '@berrypack/compiler')!;
    const installed = path.join(project, 'node_modules/@berrypack/compiler');
    // The tarball's JavaScript is the bundle, byte for byte (vitest's global setup built the
    // repository's dist/ from the sources just now): the entries `exports` names and shared
    // chunks, not a file per source module.
    const js = compiler.files.filter((f) => f.endsWith('.js')).sort();
    const entries = compilerEntries(compiler.manifest).map((e) => `dist/${e.out}.js`);
    expect(js).toEqual(expect.arrayContaining(entries));
    expect(js.filter((f) => !entries.includes(f) && !/^dist\/package\/[\w-]+-[\w-]{8}\.js$/.test(f))).toEqual([]);
    expect(js).not.toContain('dist/package/compile-package.js');
    for (const file of js) expect(readFileSync(path.join(installed, file)).equals(readFileSync(path.join(compiler.dir, file))), file).toBe(true);
    // No top-level await in any of it (CONTRACTS.md, Packaging): a CommonJS config `require`s the plugins.
    for (const file of js) expect(readFileSync(path.join(installed, file), 'utf8'), file).not.toMatch(/^await\b|^(?:const|let|var) [^=]+= await\b/m);

    // Rollup with @berrypack/rollup, then the CLI's `build`, in one process: every compiler
    // module loads once, from the one installed package, and a function both subpaths export is
    // the same object.
    writeFileSync(
      path.join(project, 'one-copy.mjs'),
      [
        "import { rollup } from 'rollup';",
        "import berrypack from '@berrypack/rollup';",
        "import { run } from 'berrypack';",
        "import * as adapter from '@berrypack/compiler/internal-adapter';",
        "import * as forCli from '@berrypack/compiler/internal-cli';",
        "const build = await rollup({ input: 'src/main.js', plugins: [berrypack()], logLevel: 'silent' });",
        "await build.generate({ format: 'es' });",
        "const code = await run(['build', 'hello', '--out-dir', 'one-copy', '--no-cache']);",
        'console.log(JSON.stringify({ code, shared: adapter.findPackageManifest === forCli.findPackageManifest && adapter.readNormalized === forCli.readNormalized }));',
        '',
      ].join('\n'),
    );
    const log = path.join(root, 'one-copy.log');
    writeFileSync(log, '');
    const result = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(ROOT, 'test/support/module-log.mjs')).href, 'one-copy.mjs'], {
      cwd: project,
      env: { ...env, BERRYPACK_MODULE_LOG: log },
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toEqual({ code: 0, shared: true });
    const loaded = readFileSync(log, 'utf8')
      .split('\n')
      // The compiler's modules, not its own dependencies (magic-string) installed under it.
      .filter((m) => /[\\/]@berrypack[\\/]compiler[\\/](?!node_modules[\\/])/.test(m));
    const at = pathToFileURL(path.join(installed, 'dist')).href + '/';
    expect(loaded.filter((m) => !m.startsWith(at))).toEqual([]);
    const files = loaded.map((m) => `dist/${m.slice(at.length)}`);
    expect(new Set(files).size).toBe(files.length);
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/internal-adapter.js', 'dist/internal-cli.js']));
    expect(files.every((f) => js.includes(f))).toBe(true);
  }, 300_000);

  it('pass publint (strict) and are the types wrong? (the ESM-only profile where there is no CommonJS build)', async () => {
    for (const p of packed) {
      const bytes = readFileSync(p.tarball);
      const { messages } = await publint({
        pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
        strict: true,
        level: 'suggestion',
      });
      expect(messages, p.name).toEqual([]);
      // attw's profiles: `esm-only` ignores the node10 and node16-from-CommonJS resolutions, `node16` only node10.
      const hasCjs = JSON.stringify(p.manifest['exports'] ?? {}).includes('"require"');
      const ignored = hasCjs ? ['node10'] : ['node10', 'node16-cjs'];
      const result = await checkPackage(createPackageFromTarballData(new Uint8Array(bytes)));
      expect(result.types, p.name).not.toBe(false);
      const problems = result.types ? result.problems.filter((problem) => !('resolutionKind' in problem && ignored.includes(problem.resolutionKind))) : [];
      expect(problems, p.name).toEqual([]);
    }
  }, 300_000);
});

describe('the published types', () => {
  it('reach no optional peer (Rollup, Vite), so they resolve where that peer is not installed', () => {
    // From each package's `types` entries, every .d.ts they import, transitively: a module
    // specifier naming an optional peer would be unresolved in a project without it (a Vite 8
    // project has no rollup), an error under `skipLibCheck: false` and `any` otherwise.
    for (const p of packed) {
      const installed = path.join(project, 'node_modules', p.name);
      const optional = Object.entries((p.manifest['peerDependenciesMeta'] ?? {}) as Record<string, { optional?: boolean }>)
        .filter(([, meta]) => meta.optional)
        .map(([name]) => name);
      if (optional.length === 0) continue;
      const entries = JSON.stringify(p.manifest['exports'])
        .match(/"types":"([^"]+)"/g)!
        .map((m) => m.slice('"types":"'.length, -1));
      const seen = new Set<string>();
      const queue = entries.map((e) => path.join(installed, e));
      const reached: string[] = [];
      while (queue.length > 0) {
        const file = queue.pop()!;
        if (seen.has(file)) continue;
        seen.add(file);
        const code = readFileSync(file, 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/\/\/.*$/gm, '');
        for (const m of code.matchAll(/(?:from\s+|import\(\s*|import\s+)['"]([^'"]+)['"]/g)) {
          const specifier = m[1]!;
          if (specifier.startsWith('.')) queue.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.d.ts')));
          else
            reached.push(
              specifier
                .split('/')
                .slice(0, specifier.startsWith('@') ? 2 : 1)
                .join('/'),
            );
        }
      }
      expect(seen.size, p.name).toBeGreaterThan(1);
      expect(
        reached.filter((name) => optional.includes(name)),
        p.name,
      ).toEqual([]);
    }
  });
});

describe('the README, followed literally in a project outside the repository', () => {
  it('builds with Rollup, Vite and esbuild from ES module and CommonJS configs and the CLI, all to the same bundle bytes', () => {
    const { files, commands } = readmeSection('In a Rollup, Vite, esbuild, webpack or Rspack build');
    expect([...files.keys()]).toEqual(
      expect.arrayContaining(['hello/plugin.json', 'rollup.config.mjs', 'rollup.config.cjs', 'vite.config.cjs', 'build.cjs', 'src/main.js']),
    );
    const outputs: string[] = [];
    for (const command of commands) {
      const { status, out } = sh(command);
      expect(status, `${command}\n${out}`).toBe(0);
      outputs.push(out);
    }

    const bundles = new Map<string, string[]>();
    const dist = path.join(project, 'dist');
    for (const file of listFiles(dist).filter((f) => f.endsWith('.berry.json'))) {
      const [dir] = file.split('/');
      const key = `${path.basename(file)} ${readFileSync(path.join(dist, file)).toString('base64')}`;
      bundles.set(key, [...(bundles.get(key) ?? []), dir!]);
    }
    // One bundle, the same name and bytes from all eight builds.
    expect([...bundles.values()].map((dirs) => dirs.sort())).toEqual([
      ['cli', 'esbuild', 'esbuild-cjs', 'rollup', 'rollup-as-cjs', 'rollup-cjs', 'vite', 'vite-cjs'],
    ]);
    const bundleName = [...bundles.keys()][0]!.split(' ')[0]!;
    const id = JSON.parse(readFileSync(path.join(dist, 'cli', bundleName), 'utf8')).id as string;

    // Every output runs and describes that bundle; esbuild's keeps no absolute path.
    for (const dir of ['rollup', 'rollup-cjs', 'rollup-as-cjs', 'vite', 'vite-cjs', 'esbuild', 'esbuild-cjs']) {
      const out = execFileSync(process.execPath, [path.join(dist, dir, 'main.js')], { cwd: project, encoding: 'utf8' });
      expect(out, dir).toBe(`${id} ${bundleName} [ 'hello' ] greet model\n`);
      expect(readFileSync(path.join(dist, dir, 'main.js'), 'utf8'), dir).not.toContain(project);
    }
    // The installed CLI ran the agent: the model's scripted answer went through `next` to the code routine in the sandbox.
    expect(outputs.at(-1)).toMatch(/"words": 0[\s\S]*completed · 3 calls/);
  }, 600_000);

  it("serves an unchanged package from the installed CLI's build cache", () => {
    const { status, out } = sh('npx berrypack build hello --out-dir dist/cli-again && npx berrypack build hello --out-dir dist/cli-again');
    expect(status, out).toBe(0);
    expect(out).toMatch(/\(from the cache\)/);
  }, 120_000);

  it("bundles the runtime for Node with esbuild, nothing external but Node's built-ins, and runs a code routine with it", () => {
    writeFileSync(
      path.join(project, 'run.mjs'),
      [
        "import { readdirSync, readFileSync } from 'node:fs';",
        "import { createRuntime, loadBundle } from '@berrypack/runtime';",
        "const file = readdirSync('dist/cli').find((f) => f.endsWith('.berry.json'));",
        'const bundle = await loadBundle(readFileSync(`dist/cli/${file}`));',
        'const runtime = createRuntime();',
        "const preparation = runtime.prepare(bundle, { grants: [], models: { default: { provider: 'scripted', script: { greet: [{ output: { text: 'Hello there, Ada' } }] } } } });",
        "const { executionId } = await runtime.start(preparation, { agent: 'hello' }, { name: 'Ada' });",
        'const outcome = await runtime.result(executionId);',
        'console.log(JSON.stringify(outcome.output));',
        'await runtime.close();',
        '',
      ].join('\n'),
    );
    const { status, out } = sh(
      "npx berrypack build hello --out-dir dist/cli && node -e \"require('esbuild').buildSync({ entryPoints: ['run.mjs'], bundle: true, platform: 'node', format: 'esm', outfile: 'app/run.mjs', logLevel: 'error' })\" && node app/run.mjs",
    );
    expect(status, out).toBe(0);
    expect(out).toMatch(/\n\{"text":"Hello there, Ada","words":3\}\n$/);
    expect(readFileSync(path.join(project, 'app/run.mjs'), 'utf8')).not.toMatch(/from ["']typescript["']|import\(["']typescript["']\)/);
  }, 120_000);

  it('a missing dist/ tells an installed user to reinstall, not to run a build script', () => {
    const { status, out } = sh(
      'mv node_modules/berrypack/dist node_modules/berrypack/dist-away && node node_modules/berrypack/bin/berrypack.js --help; s=$?; mv node_modules/berrypack/dist-away node_modules/berrypack/dist; exit $s',
    );
    expect(status).toBe(2);
    expect(out).toMatch(/^berrypack: cannot load the CLI \(ERR_MODULE_NOT_FOUND\): the berrypack package is incomplete; reinstall it/);
  });
});
