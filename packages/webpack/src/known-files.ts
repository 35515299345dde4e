import { nodeHost } from '@berrypack/compiler/internal-adapter';

/**
 * Whether each file a build returned exists (webpack takes a present file as a dependency and a
 * missing one as a missing dependency), kept across the runs of one watch session. A file
 * appears or goes only with a change the watcher reports (`modifiedFiles`, `removedFiles`), so a
 * rebuild stats those instead of every file of the package (1,000 stats at 1,000 routines).
 */
export interface KnownFiles {
  exists(file: string): boolean;
  /** A new run: `changed` is what the watcher reported, or undefined when it cannot say (forget all). */
  forget(changed: readonly string[] | undefined): void;
}

export function createKnownFiles(): KnownFiles {
  const known = new Map<string, boolean>();
  return {
    exists(file) {
      let present = known.get(file);
      if (present === undefined) known.set(file, (present = nodeHost.stat(file) !== undefined));
      return present;
    },
    forget(changed) {
      if (changed === undefined) known.clear();
      else for (const file of changed) known.delete(file);
    },
  };
}
