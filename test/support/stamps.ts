import { nodeHost } from '@berrypack/compiler';

/**
 * Records the paths whose stamp the compiler checks (`nodeHost.stamp`, one stat each: how a
 * rebuild without a watcher's list of changes finds what changed) until `restore`.
 */
export function recordStamps(): { paths: string[]; restore(): void } {
  const original = nodeHost.stamp!;
  const paths: string[] = [];
  nodeHost.stamp = (file) => {
    paths.push(file);
    return original(file);
  };
  return { paths, restore: () => void (nodeHost.stamp = original) };
}

/** Waits out the read cache's racy window (a 100 ms tick plus 20 ms of file-clock lag), so files written just before are kept in memory. */
export const agePastRacyWindow = () => new Promise((resolve) => setTimeout(resolve, 250));
