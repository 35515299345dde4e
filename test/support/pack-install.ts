import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli.js';

/** What `npm pack` made of one workspace. */
export interface Packed {
  name: string;
  version: string;
  dir: string;
  tarball: string;
  files: string[];
  manifest: PackageManifest;
}

interface PackageManifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  [key: string]: unknown;
}

interface LockEntry {
  version?: string;
  link?: boolean;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

const rootManifest = () => JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };

/** The workspaces of the repository, from its package.json: a new package is packed without a change here. */
export function workspaces(): string[] {
  return rootManifest().workspaces;
}

export function npm(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
}

/** Packs every workspace into `into` (scripts ignored: `npm test` has just built dist/). */
export function packWorkspaces(into: string): Packed[] {
  const out = npm(['pack', '--workspaces', '--ignore-scripts', '--json', '--pack-destination', into], ROOT);
  const reports = JSON.parse(out) as { name: string; version: string; filename: string; files: { path: string }[] }[];
  return reports.map((report, i) => {
    const dir = path.join(ROOT, workspaces()[i]!);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageManifest;
    if (manifest.name !== report.name) throw new Error(`npm pack reported ${report.name} for ${dir}`);
    return {
      name: report.name,
      version: report.version,
      dir,
      tarball: path.join(into, report.filename),
      files: report.files.map((f) => f.path).sort(),
      manifest,
    };
  });
}

/**
 * Writes `package.json` and a `package-lock.json` for a project that depends on the tarballs and
 * on `extra` (names of packages installed in the repository), every version taken from the
 * repository's lockfile: `npm ci --offline` then installs from the cache that `npm ci` filled,
 * with no registry metadata needed.
 */
export function writeProject(dir: string, packed: readonly Packed[], extra: readonly string[], fields: Record<string, unknown> = {}): void {
  const repoLock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const byName = new Map(packed.map((p) => [p.name, p]));
  const wsKey = new Map(packed.map((p) => [p.name, path.relative(ROOT, p.dir).split(path.sep).join('/')]));
  const packages: Record<string, LockEntry> = {};
  const dependencies: Record<string, string> = {};

  /** Node's lookup from `from` (a repository lock key), nearest node_modules first. */
  const locate = (from: string, name: string): string | undefined => {
    let base = from;
    for (;;) {
      const key = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
      if (repoLock.packages[key]) return key;
      if (base === '') return undefined;
      const cut = base.lastIndexOf('/node_modules/');
      base = cut < 0 ? '' : base.slice(0, cut);
    }
  };
  /** Where a repository lock key lands in the project: a workspace's own node_modules moves under its package. */
  const place = (key: string): string => {
    for (const [name, ws] of wsKey) if (key.startsWith(`${ws}/`)) return `node_modules/${name}/${key.slice(ws.length + 1)}`;
    return key;
  };
  const visit = (from: string, deps: Record<string, string> | undefined, optional: boolean) => {
    for (const name of Object.keys(deps ?? {})) {
      if (byName.has(name)) continue;
      const key = locate(from, name);
      if (key === undefined) {
        if (optional) continue;
        throw new Error(`${name} (needed from ${from || 'the project'}) is not in package-lock.json`);
      }
      const entry = repoLock.packages[key]!;
      if (entry.link) continue;
      const target = place(key);
      if (packages[target]) continue;
      const { dev: _dev, devOptional: _devOptional, peer: _peer, ...kept } = entry;
      packages[target] = kept;
      visit(key, entry.dependencies, false);
      visit(key, entry.optionalDependencies, true);
      const peers = Object.fromEntries(Object.entries(entry.peerDependencies ?? {}).filter(([peer]) => !entry.peerDependenciesMeta?.[peer]?.optional));
      visit(key, peers, true);
    }
  };

  for (const p of packed) {
    const spec = `file:${path.relative(dir, p.tarball).split(path.sep).join('/')}`;
    dependencies[p.name] = spec;
    const {
      name: _name,
      scripts: _scripts,
      devDependencies: _dev,
      files: _files,
      exports: _exports,
      type: _type,
      description: _d,
      repository: _r,
      homepage: _h,
      bugs: _b,
      ...rest
    } = p.manifest;
    packages[`node_modules/${p.name}`] = {
      ...Object.fromEntries(
        Object.entries(rest).filter(([k]) => ['version', 'license', 'dependencies', 'bin', 'engines', 'peerDependencies', 'peerDependenciesMeta'].includes(k)),
      ),
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(p.tarball)).digest('base64')}`,
    };
  }
  for (const name of extra) {
    const entry = repoLock.packages[`node_modules/${name}`];
    if (!entry?.version) throw new Error(`${name} is not installed at the repository's root`);
    dependencies[name] = entry.version;
  }
  visit('', dependencies, false);
  for (const p of packed) for (const ws of [wsKey.get(p.name)!]) visit(ws, p.manifest.dependencies, false);

  const manifest = { name: 'berrypack-install-check', version: '1.0.0', private: true, ...fields, dependencies };
  const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a < b ? -1 : 1)));
  const lock = {
    name: manifest.name,
    version: manifest.version,
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name: manifest.name, version: manifest.version, dependencies }, ...sorted },
  };
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2) + '\n');
}

/** Fenced blocks of a README section: `<!-- file: PATH -->` before a block writes it there; `<!-- run -->` marks the commands. */
export function readmeSection(heading: string): { files: Map<string, string>; commands: string[] } {
  const text = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "${heading}"`);
  const next = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, next < 0 ? undefined : next);
  const files = new Map<string, string>();
  const commands: string[] = [];
  for (const m of section.matchAll(/<!-- (file: (\S+)|run) -->\n```[a-z]*\n([\s\S]*?)```/g)) {
    if (m[2] !== undefined) files.set(m[2], m[3]!);
    else
      commands.push(
        ...m[3]!
          .split('\n')
          .map((line) => line.replace(/\s+#.*$/, '').trim())
          .filter((line) => line !== ''),
      );
  }
  return { files, commands };
}
