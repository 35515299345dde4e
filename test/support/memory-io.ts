/** An in-memory `io` for the CLI's commands, with what they wrote (stdout and stderr interleaved in `output`). */
export function memoryIo(cwd: string, env: NodeJS.ProcessEnv = {}, isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  const all: string[] = [];
  const io = {
    stdout: { write: (s: string) => (out.push(s), all.push(s)), isTTY },
    stderr: { write: (s: string) => (err.push(s), all.push(s)) },
    cwd,
    env,
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join(''), output: () => all.join('') };
}
