export interface CliIo {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** What `chat` reads its messages from; default: the process's stdin. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env, stdin: process.stdin };
}
