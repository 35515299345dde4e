import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createSessionStore, type SessionData, type SessionStore } from '@berrypack/runtime';

/**
 * The CLI's session store (docs/runtime.md, "Sessions"): one JSON file per session in
 * `directory`, replaced atomically; an execution's session is found again from the files, so
 * `chat --continue` in a new process keeps it. The runtime itself reads no files.
 */
export function createFileSessionStore(directory: string): SessionStore {
  const file = (id: string) => path.join(directory, `${encodeURIComponent(id)}.json`);
  const load = (id: string): SessionData | undefined => {
    try {
      const data = JSON.parse(readFileSync(file(id), 'utf8')) as unknown;
      return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as SessionData) : undefined;
    } catch {
      return undefined;
    }
  };
  // Every session id kept in the directory, sorted (none when it does not exist yet).
  const ids = (): string[] => {
    try {
      return readdirSync(directory)
        .filter((n) => n.endsWith('.json'))
        .map((n) => decodeURIComponent(n.slice(0, -'.json'.length)))
        .sort();
    } catch {
      return [];
    }
  };
  return createSessionStore({
    load,
    ids,
    find(executionId) {
      for (const id of ids()) if (load(id)?.executions?.includes(executionId)) return id;
      return undefined;
    },
    save(data) {
      mkdirSync(directory, { recursive: true });
      const target = file(data.id);
      writeFileSync(`${target}.tmp`, `${JSON.stringify(data, null, 2)}\n`);
      renameSync(`${target}.tmp`, target);
    },
  });
}
