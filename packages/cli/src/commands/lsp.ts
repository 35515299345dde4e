import type { CliIo } from '../io.js';
import { parse } from '../options.js';
import { UsageError } from '../usage-error.js';

export const LSP_HELP = `Usage: berrypack lsp --stdio

Runs the berrypack language server (LSP 3.17) on stdin and stdout, for editors: diagnostics
as \`berrypack check\` reports them, completion, hover, go to definition and quick fixes for
routine .md files, plugin.json and method documents. See docs/editors.md.
`;

export async function lspCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, { stdio: { type: 'boolean' } });
  if (values.help) {
    io.stdout.write(LSP_HELP);
    return 0;
  }
  if (values.stdio !== true || positionals.length) throw new UsageError('Unexpected arguments, expected `berrypack lsp --stdio`');
  const { createConnection, ProposedFeatures } = await import('vscode-languageserver/node.js');
  const { startServer } = await import('../lsp/server.js');
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  startServer(connection);
  // The connection ends the process on `exit`; until then the command does not return.
  return new Promise<number>(() => undefined);
}
