// A minimal client: it starts `berrypack lsp --stdio` and hands it routine .md files,
// plugin.json and method documents. Everything else is the server's (docs/editors.md).
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration('berrypack').get('server.command');
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  client = new LanguageClient(
    'berrypack',
    'berrypack',
    { command, args, options: { cwd, shell: process.platform === 'win32' } },
    {
      documentSelector: [
        { scheme: 'file', language: 'markdown' },
        { scheme: 'file', pattern: '**/plugin.json' },
        { scheme: 'file', pattern: '**/*.method.{yaml,yml,json}' },
      ],
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client?.stop();
}

module.exports = { activate, deactivate };
