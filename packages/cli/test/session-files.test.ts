import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileSessionStore } from '../src/session-files.js';

describe('the CLI file session store', () => {
  it('the file session store keeps sessions, versioned State and execution membership across store instances', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'berrypack-sessions-'));
    try {
      const first = createFileSessionStore(dir);
      first.attach('exec-1', 'session-x', { agent: 'assistant' });
      expect(first.writeState('session-x', 'plan', { step: 1 })).toBe(1);
      expect(first.writeState('session-x', 'plan', null, 1)).toBe(2);
      expect(() => first.writeState('session-x', 'plan', 'late', 1)).toThrow(/version 1 of State key `plan`, expected 2/);
      const second = createFileSessionStore(dir);
      expect(second.sessionOf('exec-1')).toBe('session-x');
      expect(second.readState('exec-1', 'plan')).toEqual({ value: null, version: 2 });
      expect(second.read('exec-1')).toEqual({
        id: 'session-x',
        thread: { id: 'main', title: 'Main' },
        opening: { executionId: 'exec-1', target: { agent: 'assistant' } },
        threads: [{ id: 'main', title: 'Main' }],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
