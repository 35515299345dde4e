// Method runs on PostgreSQL shared by `berrypack method worker` processes in separate working
// directories (issue #20, docs/scale.md). The same scenario is `npm run e2e:scale`; here each
// claim is asserted on its own. Without PostgreSQL the suite is skipped (CI fails instead).
import { beforeAll, describe, expect, it } from 'vitest';
import { checkMethodWorkers, runMethodWorkersScenario, type Claim } from '../scripts/scale/method-workers.mjs';
import { postgresOrSkip } from './support/postgres.js';

const available = postgresOrSkip('method runs on PostgreSQL') !== undefined;

describe.skipIf(!available)('MTH-18: method runs shared by workers on PostgreSQL', () => {
  let claims: Claim[];
  beforeAll(async () => {
    claims = checkMethodWorkers(await runMethodWorkersScenario());
  }, 600_000);

  const holds = (index: number): void => {
    const claim = claims[index]!;
    expect(claim.ok, `${claim.claim}: ${claim.observed}`).toBe(true);
  };

  it('runs independent steps on different workers at once', () => holds(0));
  it('serializes steps on one connection across workers', () => holds(1));
  it("retries a killed worker's step that changes nothing, on another worker", () => holds(2));
  it("reports a killed worker's external write uncertain and does not retry it", () => holds(3));
  it('continues after confirm from another directory, and the ask waits', () => holds(4));
  it('completes after resume from another directory', () => holds(5));
  it('completes no step twice', () => holds(6));
  it('drains on SIGTERM: the step in hand finishes, the worker exits 0', () => holds(7));
  it("takes a killed worker's step up again", () => holds(8));
});
