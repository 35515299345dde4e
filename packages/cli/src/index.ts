import { BUILD_HELP, buildCommand } from './commands/build.js';
import { CHECK_HELP, checkCommand } from './commands/check.js';
import { INSPECT_HELP, inspectCommand } from './commands/inspect.js';
import { VERIFY_HELP, verifyCommand } from './commands/verify.js';
import { processIo, type CliIo } from './io.js';
import { UsageError } from './usage-error.js';

const HELP = `Usage: berrypack <command> [options]

Commands:
  check PATH          check routine sources, a plugin.json package or a directory
  build MANIFEST      compile a package into a content-addressed bundle
  inspect BUNDLE      verify a bundle and list its agents, exports, sources and requirements
  verify MANIFEST     build twice in different directories and compare the bytes

Run \`berrypack <command> --help\` for a command's options.
`;

const COMMANDS: Record<string, (args: string[], io: CliIo) => number | Promise<number>> = {
  check: checkCommand,
  build: buildCommand,
  inspect: inspectCommand,
  verify: verifyCommand,
};

/** Runs the CLI and resolves to its exit code; never throws and never prints a stack trace. */
export async function run(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout).write(HELP);
    return command === undefined ? 2 : 0;
  }
  const handler = COMMANDS[command];
  if (!handler) {
    io.stderr.write(`berrypack: unknown command \`${command}\` (commands: ${Object.keys(COMMANDS).join(', ')})\n`);
    return 2;
  }
  try {
    return await handler(rest, io);
  } catch (error) {
    const message = error instanceof UsageError ? error.message : `internal error: ${error instanceof Error ? error.message : String(error)}`;
    io.stderr.write(`berrypack ${command}: ${message.split('\n')[0]}\n`);
    return 2;
  }
}

export { BUILD_HELP, CHECK_HELP, INSPECT_HELP, VERIFY_HELP };
export type { CliIo };
