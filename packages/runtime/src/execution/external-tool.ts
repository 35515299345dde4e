/** What an external tool's implementation receives besides its input. */
export interface ToolContext {
  executionId: string;
  callId: string;
  /** Aborted at the calling allowance's deadline. */
  signal: AbortSignal;
}

/**
 * An external tool (or runtime reader) the host supplies to `createRuntime({tools})`. Supplying
 * it grants nothing: a preparation must grant it by name, and a routine must declare it.
 */
export interface ExternalTool {
  description?: string;
  /** JSON Schema 2020-12 of the input, checked before the call and offered to models. */
  input?: unknown;
  /** JSON Schema 2020-12 of the output, checked before the caller sees it. */
  output?: unknown;
  invoke(input: unknown, context: ToolContext): unknown;
  /**
   * Releases what serves the tool (an MCP server, a module's handles). The runtime owns the
   * tools it is given: `runtime.close()` calls each distinct `close` once.
   */
  close?(): Promise<void> | void;
}

export type ToolImplementation = ExternalTool | ((input: unknown, context: ToolContext) => unknown);

export function toolOf(implementation: ToolImplementation): ExternalTool {
  return typeof implementation === 'function' ? { invoke: implementation } : implementation;
}

/** The runtime readers of TPL-4, by template root. `runtime.context.read` is built in. */
export const READERS = {
  context: 'runtime.context.read',
  session: 'runtime.session.read',
  state: 'runtime.session.state.read',
  runtime: 'runtime.catalog.read',
  user: 'runtime.user.profile.read',
} as const;

export const UI_PUBLISH = 'runtime.ui.publish';
