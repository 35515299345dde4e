// turbo's remote cache, served by turborepo-remote-cache on loopback, shared by two git clones
// of fixtures/monorepo in different directories (docs/scale.md). The same scenario is
// `npm run e2e:scale`; here each observation is asserted on its own.
import { beforeAll, describe, expect, it } from 'vitest';
import { checkRemoteCache, runRemoteCacheScenario, type RemoteCacheResult } from '../scripts/scale/remote-cache.mjs';

const ALL = ['greeter', 'notes', 'text-kit'];

describe('a remote build cache shared by two clones', () => {
  let r: RemoteCacheResult;
  beforeAll(async () => {
    r = await runRemoteCacheScenario();
  }, 300_000);

  it('the first clone builds every package and uploads each artifact', () => {
    const { first } = r.runs;
    expect(first.built).toEqual(ALL);
    expect(Object.values(first.tasks).map((t) => t.status)).toEqual(['MISS', 'MISS', 'MISS']);
    expect(r.stored).toEqual(
      Object.values(first.tasks)
        .flatMap((t) => [t.hash, `${t.hash}.tag`])
        .sort(),
    );
  });

  it('a second clone elsewhere is FULL TURBO from the remote, runs no build and holds identical bundles', () => {
    const { second, first } = r.runs;
    expect(second.fullTurbo, second.output).toBe(true);
    for (const p of ALL) expect(second.tasks[p]).toEqual({ status: 'HIT', source: 'REMOTE', hash: first.tasks[p]!.hash });
    expect(second.built).toEqual([]);
    expect(r.secondIdentical).toBe(true);
  });

  it('an edit rebuilds that package and its dependent only; the other clone then pulls it from the cache', () => {
    const { afterEdit, pulled, first } = r.runs;
    expect(afterEdit.built).toEqual(['greeter', 'text-kit']);
    expect(afterEdit.tasks['notes']).toMatchObject({ status: 'HIT', hash: first.tasks['notes']!.hash });
    expect(afterEdit.tasks['greeter']!.hash).not.toBe(first.tasks['greeter']!.hash);
    expect(r.editReached).toBe(true);
    expect(pulled.built).toEqual([]);
    expect(pulled.tasks['text-kit']).toEqual({ status: 'HIT', source: 'REMOTE', hash: afterEdit.tasks['text-kit']!.hash });
    expect(pulled.tasks['greeter']).toEqual({ status: 'HIT', source: 'REMOTE', hash: afterEdit.tasks['greeter']!.hash });
    expect(r.pulledIdentical).toBe(true);
  });

  it("refuses an artifact swapped in the server's storage (signature) and rebuilds it to the same bytes", () => {
    const { tampered, afterEdit } = r.runs;
    expect(tampered.built).toEqual(['greeter']);
    expect(tampered.tasks['greeter']).toEqual({ status: 'MISS', source: null, hash: afterEdit.tasks['greeter']!.hash });
    expect(tampered.tasks['text-kit']).toMatchObject({ status: 'HIT', source: 'REMOTE' });
    expect(r.tamperedIdentical).toBe(true);
  });

  it('leaks neither the token, the signature key nor an absolute path, and the e2e checks agree', () => {
    expect(r.leaks).toEqual([]);
    expect(checkRemoteCache(r).filter((c) => !c.ok)).toEqual([]);
  });
});
