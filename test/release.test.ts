// The release process (docs/releasing.md): every workspace would publish, in lockstep, public,
// with what a user needs and nothing else. `npm publish --dry-run` contacts no registry.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/cli.js';
import { npm, workspaces } from './support/pack-install.js';

describe('npm publish --dry-run of every package', () => {
  it('would publish each workspace at one version, with public access, its LICENSE and no sources', () => {
    const manifests = workspaces().map(
      (ws) => JSON.parse(readFileSync(`${ROOT}/${ws}/package.json`, 'utf8')) as { name: string; version: string; private?: boolean },
    );
    const out = npm(['publish', '--dry-run', '--workspaces', '--ignore-scripts', '--json', '--offline'], ROOT);
    const report = JSON.parse(out) as Record<string, { name: string; version: string; access?: string | null; files: { path: string }[] }>;
    expect(Object.keys(report).sort()).toEqual(manifests.map((m) => m.name).sort());
    expect(new Set(Object.values(report).map((r) => r.version)).size).toBe(1);
    for (const manifest of manifests) {
      const entry = report[manifest.name]!;
      expect(manifest.private, manifest.name).toBeUndefined();
      expect(
        entry.files.map((f) => f.path),
        manifest.name,
      ).toContain('LICENSE');
      expect(
        entry.files.filter((f) => f.path.startsWith('src/') || f.path.endsWith('.map')),
        manifest.name,
      ).toEqual([]);
      expect(
        (JSON.parse(readFileSync(`${ROOT}/${workspaces()[manifests.indexOf(manifest)]}/package.json`, 'utf8')) as { publishConfig?: { access?: string } })
          .publishConfig?.access,
        manifest.name,
      ).toBe('public');
    }
    // The changelog has a section for the version being released, or for what is unreleased.
    const changelog = readFileSync(`${ROOT}/CHANGELOG.md`, 'utf8');
    expect(changelog).toMatch(new RegExp(`^## (Unreleased|${manifests[0]!.version.replace(/\./g, '\\.')})`, 'm'));
  }, 300_000);
});
