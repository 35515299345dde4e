import { createRequire } from 'node:module';
import { processIo, type CliIo } from './io.js';
import { terminalSafe as safe } from './terminal-safe.js';
import { UsageError } from './usage-error.js';

const HELP = `Usage: berrypack <command> [options]

Commands:
  init [DIR]          create a new package that builds and runs at once
  check PATH          check routine sources, a plugin.json package or a directory
  build MANIFEST      compile a package into a content-addressed bundle
  inspect BUNDLE      verify a bundle and list its agents, exports, sources and requirements
  verify MANIFEST     build twice in different directories and compare the bytes
  types MANIFEST      write TypeScript declarations of the package's routines (berrypack-env.d.ts)
  run BUNDLE          run an agent or export of a bundle (or a plugin.json built in memory)
  chat BUNDLE         converse with an agent: stdin lines are its messages, answers stream back
  replay JOURNAL      re-run a recorded execution from its journal and report any divergence
  method run|resume|confirm|status   run method/2 documents durably
  lsp --stdio         run the language server for editors

Run \`berrypack <command> --help\` for a command's options, \`berrypack --version\` for the version.
Documentation: https://github.com/berrypack/berrypack#readme (methods: docs/methods.md there)
`;

type Command = (args: string[], io: CliIo) => number | Promise<number>;

// Commands load on demand: `build` should not pay for the runtime, nor `run` for Vite-free
// compiler parts it never touches. Start-up is a visible share of a small build.
const COMMANDS: Record<string, () => Promise<Command>> = {
  init: async () => (await import('./commands/init.js')).initCommand,
  check: async () => (await import('./commands/check.js')).checkCommand,
  build: async () => (await import('./commands/build.js')).buildCommand,
  inspect: async () => (await import('./commands/inspect.js')).inspectCommand,
  verify: async () => (await import('./commands/verify.js')).verifyCommand,
  types: async () => (await import('./commands/types.js')).typesCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  chat: async () => (await import('./commands/chat.js')).chatCommand,
  replay: async () => (await import('./commands/replay.js')).replayCommand,
  method: async () => (await import('./commands/method.js')).methodCommand,
  lsp: async () => (await import('./commands/lsp.js')).lspCommand,
};

/** Runs the CLI and resolves to its exit code; never throws and never prints a stack trace. */
export async function run(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout).write(HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === '--version' || command === '-v') {
    io.stdout.write(`${version()}\n`);
    return 0;
  }
  const load = COMMANDS[command];
  if (!load) {
    io.stderr.write(`berrypack: unknown command \`${safe(command)}\` (commands: ${Object.keys(COMMANDS).join(', ')})\n`);
    return 2;
  }
  try {
    const handler = await load();
    return await handler(rest, io);
  } catch (error) {
    const message = error instanceof UsageError ? error.message : `internal error: ${error instanceof Error ? error.message : String(error)}`;
    io.stderr.write(`berrypack ${command}: ${safe(message.split('\n')[0])}\n`);
    return 2;
  }
}

/** This package's version: its package.json is one level above this module, in src/ and dist/ alike. */
function version(): string {
  return (createRequire(import.meta.url)('../package.json') as { version: string }).version;
}

export type { CliIo };
