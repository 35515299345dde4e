/**
 * Model providers are adapters behind this one interface (RUN-6). The runtime renders the
 * instructions, offers exactly the declared tools, runs the tool calls a response asks for,
 * validates the final output and records every decision; a provider only turns one request
 * into one response.
 */
export interface ModelProvider {
  /** One generation decision: text, a JSON output, or tool calls to run before the next decision. */
  generate(request: GenerationRequest, signal: AbortSignal): Promise<GenerationResponse>;
  /** Classification (CLS); without it the runtime asks `generate` for the declared output. */
  classify?(request: ClassificationRequest, signal: AbortSignal): Promise<ClassificationResponse>;
  /**
   * Streaming generation, used when the host runs with `stream: true`: `onText` receives the
   * answer's text as it arrives; the promise resolves with the same complete response
   * `generate` would give. A provider without it is asked through `generate`.
   */
  stream?(request: GenerationRequest, signal: AbortSignal, onText: (chunk: string) => void): Promise<GenerationResponse>;
  /** True when the provider reads `parts` of user messages (media: raw, url, file); otherwise media parts are refused. */
  parts?: boolean;
  /** Bounded model sessions (`interaction: session`, explicit trigger); without it such routines are refused at preparation. */
  session?: SessionProvider;
}

/** One bounded provider context per prompt (docs/runtime.md, "Bounded model sessions"). */
export interface SessionProvider {
  open(request: SessionRequest, signal: AbortSignal): Promise<ModelSession>;
}

export interface SessionRequest extends Omit<GenerationRequest, 'messages' | 'output'> {
  /** The prompt: the routine's input as the first user message. */
  messages: ModelMessage[];
}

export interface ModelSession {
  /** The session's answer to what it has been sent: text, or tool calls to run before `send`ing their results. */
  next(signal: AbortSignal): Promise<GenerationResponse>;
  /** Tool results (role `tool`) for the calls the last answer asked for. */
  send(messages: ModelMessage[]): void;
  close(): void;
}

/** Token counts of one decision; `estimated` when the provider reported none (docs/runtime.md, "Token estimates"). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  estimated?: true;
}

/** How a routine reaches a model: chosen at preparation, never by the bundle. */
export interface ModelBinding {
  /** A provider name registered with `createRuntime({providers})`: `scripted`, `openai-compatible`, … */
  provider: string;
  /** The provider's model id (`openai-compatible` sends it as `model`). */
  model?: string;
  /** Base URL of an HTTP provider, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl?: string;
  /** A credential; redacted from every journal. */
  apiKey?: string;
  /** `scripted` only: responses by routine name (see docs/runtime.md). */
  script?: Script;
  /** Extra request headers of an HTTP provider. */
  headers?: Record<string, string>;
  /** Milliseconds one HTTP request may take before it is abandoned (and retried). @default 120000 */
  requestTimeoutMs?: number;
  /** Retries of a request refused with 429/5xx or cut by a network error, within the execution's time. @default 2 */
  retries?: number;
  /** The model's context window in tokens: default context management keeps a conversation within it. */
  context_length?: number;
  /** JSON Schema of the model's settings (the catalog's `settings`): `configure` output is checked against it. */
  settings?: unknown;
}

export type ScriptResponse = { output: unknown } | { text: string } | { toolCalls: { name: string; input?: unknown }[]; text?: string };
export type Script = Record<string, ScriptResponse[]>;

export interface ToolDefinition {
  /** The name the routine declared (`notes.compose`, `rank`). */
  name: string;
  description?: string;
  /** JSON Schema 2020-12 of the argument, when the target declares one. */
  input?: unknown;
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** A part of native model content (`{parts: [...]}`, RUN-14). */
export type ContentPart = Record<string, unknown>;

export type ModelMessage =
  | { role: 'user'; content: string; parts?: ContentPart[] }
  | { role: 'assistant'; content?: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; callId: string; name: string; content: string };

interface RequestBase {
  /** The routine's qualified name. */
  routine: string;
  /** The routine's n-th decision in this execution, from 0: a scripted provider answers by it. */
  sequence: number;
  connection: ModelBinding;
  /** The rendered body: templates substituted, includes expanded. */
  instructions: string;
  /** Model settings from the routine's `model` (max_output_tokens, effort, …). */
  settings: Record<string, unknown>;
  /** JSON Schema 2020-12 of the declared output, for structured output. */
  output?: unknown;
}

export interface GenerationRequest extends RequestBase {
  /** The conversation so far: the input as the first user message, then tool calls and results. */
  messages: ModelMessage[];
  tools: ToolDefinition[];
}

export interface ClassificationRequest extends RequestBase {
  input: unknown;
}

/** `finish: 'length'` means the output limit was reached: a failure, never a partial success. */
export type GenerationResponse = ({ text: string } | { output: unknown } | { toolCalls: ToolCall[]; text?: string }) & {
  finish?: 'stop' | 'length' | 'tool_calls';
  usage?: Usage;
};

export type ClassificationResponse = { output: unknown; finish?: 'stop' | 'length'; usage?: Usage };
