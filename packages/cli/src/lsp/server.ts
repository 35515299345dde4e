import { fileURLToPath, pathToFileURL } from 'node:url';
import { CodeActionKind, DiagnosticSeverity, TextDocumentSyncKind, type Connection, type Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { TextDocuments } from 'vscode-languageserver';
import type { Diagnostic } from './compiler.js';
import { codeActions, complete, definition, hover } from './features.js';
import { diagnosticRange } from './positions.js';
import { Workspace } from './workspace.js';

/** Time after the last keystroke before a document is checked again. */
export const DEBOUNCE_MS = 150;

const SEVERITY = { error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, info: DiagnosticSeverity.Information } as const;

/** The same code, rule, range and hint as `berrypack check`, in LSP's terms. */
export function toLspDiagnostic(d: Diagnostic, text: string, textOf: (file: string) => string): LspDiagnostic {
  return {
    range: diagnosticRange(text, d),
    severity: SEVERITY[d.severity],
    code: d.code,
    source: 'berrypack',
    message: `${d.message} (${d.rule})${d.hint ? `\nhint: ${d.hint}` : ''}`,
    data: { rule: d.rule, ...(d.hint ? { hint: d.hint } : {}) },
    ...(d.related?.length
      ? {
          relatedInformation: d.related.map((r) => ({
            location: {
              uri: pathToFileURL(r.file).href,
              range: diagnosticRange(textOf(r.file), { line: r.line, column: r.column, endLine: r.line, endColumn: r.column }),
            },
            message: r.message,
          })),
        }
      : {}),
  };
}

/** Wires a connection: documents, debounced checks, and the four features. */
export function startServer(connection: Connection): void {
  const ws = new Workspace();
  const documents = new TextDocuments(TextDocument);
  const timers = new Map<string, NodeJS.Timeout>();
  const published = new Map<string, string>();
  const fileOf = (uri: string) => (uri.startsWith('file:') ? Workspace.realPath(fileURLToPath(uri)) : undefined);

  const check = (uri: string) => {
    const file = fileOf(uri);
    if (!file) return;
    let results: Map<string, Diagnostic[]>;
    try {
      results = ws.check(file);
    } catch (error) {
      connection.console.error(`berrypack: internal error while checking ${file}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    for (const [f, list] of results) {
      const text = list.length ? ws.text(f) : '';
      const diagnostics = list.map((d) => toLspDiagnostic(d, text, (g) => ws.text(g)));
      const target = f === file ? uri : pathToFileURL(f).href;
      // The open document's version goes with its list, so a client can tell an answer to its
      // latest edit from one to an earlier text with the same findings.
      const version = documents.get(target)?.version;
      const key = JSON.stringify([version, diagnostics]);
      if (published.get(target) === key) continue;
      published.set(target, key);
      void connection.sendDiagnostics(version === undefined ? { uri: target, diagnostics } : { uri: target, version, diagnostics });
    }
  };
  const schedule = (uri: string, delay: number) => {
    clearTimeout(timers.get(uri));
    timers.set(
      uri,
      setTimeout(() => (timers.delete(uri), check(uri)), delay),
    );
  };

  connection.onInitialize(() => ({
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: [' ', ':', '-', '{', '['] },
      hoverProvider: true,
      definitionProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
    },
    serverInfo: { name: 'berrypack' },
  }));

  documents.onDidOpen((e) => {
    const file = fileOf(e.document.uri);
    if (file) ws.setDocument(file, e.document.getText(), e.document.version);
    schedule(e.document.uri, 0);
  });
  documents.onDidChangeContent((e) => {
    const file = fileOf(e.document.uri);
    if (file) ws.setDocument(file, e.document.getText(), e.document.version);
    schedule(e.document.uri, DEBOUNCE_MS);
  });
  documents.onDidClose((e) => {
    const file = fileOf(e.document.uri);
    if (file) ws.closeDocument(file);
  });

  const guard =
    <T>(fallback: T, run: (file: string) => T) =>
    (params: { textDocument: { uri: string } }): T => {
      const file = fileOf(params.textDocument.uri);
      if (!file) return fallback;
      try {
        return run(file);
      } catch (error) {
        connection.console.error(`berrypack: internal error: ${error instanceof Error ? error.message : String(error)}`);
        return fallback;
      }
    };
  connection.onCompletion((p) => guard([], (f) => complete(ws, f, p.position))(p));
  connection.onHover((p) => guard(null, (f) => hover(ws, f, p.position))(p));
  connection.onDefinition((p) => guard([], (f) => definition(ws, f, p.position))(p));
  connection.onCodeAction((p) => guard([], (f) => codeActions(ws, f, p.context.diagnostics))(p));

  documents.listen(connection);
  connection.listen();
}
