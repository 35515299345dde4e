import type { Sandbox } from './types.js';

/**
 * The sandbox of src/sandbox/ (docs/runtime-sandbox.md), imported and created on the first
 * code routine, so that loading, preparing and inspecting never start one.
 */
export async function createDefaultSandbox(): Promise<Sandbox> {
  const { createSandbox } = await import('./index.js');
  return createSandbox();
}
