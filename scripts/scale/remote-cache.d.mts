/** One package's build task in one `turbo run build`, from turbo's run summary. */
export interface TaskCache {
  status: 'HIT' | 'MISS';
  source: 'LOCAL' | 'REMOTE' | null;
  hash: string;
}
export interface TurboRun {
  tasks: Record<string, TaskCache>;
  /** Packages whose berrypack build actually ran (the clone's bin shim logs each one), sorted. */
  built: string[];
  fullTurbo: boolean;
  /** turbo's own wall time for the run (its summary); reported, never asserted. */
  ms: number;
  output: string;
  summaryText: string;
}
export interface RemoteCacheResult {
  runs: { first: TurboRun; second: TurboRun; afterEdit: TurboRun; pulled: TurboRun; tampered: TurboRun };
  /** Files the cache server stored after the first clone's build: `<task hash>` and `<task hash>.tag`. */
  stored: string[];
  secondIdentical: boolean;
  editReached: boolean;
  pulledIdentical: boolean;
  tamperedIdentical: boolean;
  leaks: string[];
  edit: { file: string; from: string; to: string };
}
export interface Check {
  claim: string;
  ok: boolean;
  observed: string;
}
/** Runs the remote build cache scenario of docs/scale.md (scripts/scale/remote-cache.mjs). */
export function runRemoteCacheScenario(options?: { keep?: boolean }): Promise<RemoteCacheResult>;
export function checkRemoteCache(result: RemoteCacheResult): Check[];
/** process.env without TURBO_* and VERCEL_ARTIFACTS_* settings, telemetry and update checks off, then `extra`. */
export function isolatedTurboEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
