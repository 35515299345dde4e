export interface ToolEvent {
  event: 'start' | 'end';
  tool: 'lookup' | 'file';
  part: string;
  pid: number;
  at: number;
}
export interface RunView {
  runId: string;
  status: string;
  steps: Record<string, string>;
  pending: { step: string; kind: string; request: string }[];
  result?: unknown;
}
export interface MethodWorkersResult {
  first: RunView;
  confirmed: RunView;
  resumed: RunView;
  status: RunView;
  noteStep: string;
  killed: { lookup: ToolEvent; note: ToolEvent; killedLookupAt: number; killedNoteAt: number };
  firstRunEvents: ToolEvent[];
  drain: { event: ToolEvent; sigtermAt: number; exit: number | null; output: string; events: ToolEvent[] };
  secondRun: RunView;
  /** Every worker's `worker: step RUN/STEP: WHAT` line, with its pid and arrival time. */
  steps: { pid: number; at: number; run: string; step: string; what: string }[];
  seconds: number;
}
export interface Claim {
  claim: string;
  ok: boolean;
  observed: string;
}
export function runMethodWorkersScenario(options?: { stepMs?: number; writeMs?: number }): Promise<MethodWorkersResult>;
export function checkMethodWorkers(r: MethodWorkersResult): Claim[];
export function recoverySeconds(r: MethodWorkersResult): number | undefined;
