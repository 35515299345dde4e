import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CodeActionRequest,
  CompletionRequest,
  createProtocolConnection,
  DefinitionRequest,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type CompletionItem,
  type CompletionList,
  type Diagnostic,
  type Location,
  type Position,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node.js';
import { createCompiler } from '../packages/compiler/src/index.js';
import { berrypack, BIN } from './support/cli.js';
import { cleanup, copyFixtures } from './support/temp.js';

/** A real LSP client: the committed bin in a child process, JSON-RPC over its stdio. */
class Client {
  readonly diagnostics = new Map<string, Diagnostic[]>();
  private waiters: (() => void)[] = [];
  private versions = new Map<string, number>();
  /** The document version each published list answers (the server sends it for open documents). */
  private published = new Map<string, number>();
  constructor(
    readonly connection: ProtocolConnection,
    readonly child: ChildProcess,
  ) {
    connection.onNotification(PublishDiagnosticsNotification.type, (p: PublishDiagnosticsParams) => {
      this.diagnostics.set(p.uri, p.diagnostics);
      if (p.version !== undefined) this.published.set(p.uri, p.version);
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Resolves once the diagnostics of `uri` satisfy `ok` (they arrive after the debounce). */
  async diagnosticsOf(uri: string, ok: (d: Diagnostic[]) => boolean): Promise<Diagnostic[]> {
    const deadline = Date.now() + 60_000;
    const current = () => !this.versions.has(uri) || this.published.get(uri) === this.versions.get(uri);
    while (!(this.diagnostics.has(uri) && current() && ok(this.diagnostics.get(uri)!))) {
      if (Date.now() > deadline) throw new Error(`no matching diagnostics for ${uri}: ${JSON.stringify(this.diagnostics.get(uri))}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 1000);
      });
    }
    return this.diagnostics.get(uri)!;
  }

  open(file: string, text = readFileSync(file, 'utf8')): string {
    const uri = pathToFileURL(file).href;
    this.versions.set(uri, 1);
    void this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'markdown', version: 1, text } });
    return uri;
  }

  change(uri: string, text: string): void {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    void this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  async complete(uri: string, position: Position): Promise<CompletionItem[]> {
    const r = (await this.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position })) as CompletionItem[] | CompletionList | null;
    return Array.isArray(r) ? r : (r?.items ?? []);
  }
}

/** The 0-based position of the `nth` occurrence of `needle` in `text`, plus `offset` characters. */
function at(text: string, needle: string, offset = 0, nth = 0): Position {
  let index = -1;
  for (let i = 0; i <= nth; i++) index = text.indexOf(needle, index + 1);
  if (index === -1) throw new Error(`${needle} not found`);
  const before = text.slice(0, index + offset);
  return { line: before.split('\n').length - 1, character: before.length - before.lastIndexOf('\n') - 1 };
}

describe('berrypack lsp usage', () => {
  it('refuses to start without --stdio (exit 2, one line)', () => {
    const r = berrypack(['lsp']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('berrypack lsp: Unexpected arguments, expected `berrypack lsp --stdio`\n');
  });
});

describe('the check-only build the server runs on each keystroke', () => {
  it('gives what a full build gives, without the bundle', () => {
    const work = copyFixtures(['notebook', 'imports']);
    try {
      const broken = path.join(work, 'notebook/routines/converse.md');
      for (const manifest of ['notebook/plugin.json', 'imports/app/plugin.json', 'notebook/plugin.json']) {
        const file = path.join(work, manifest);
        const full = createCompiler().build(file);
        const checked = createCompiler().build(file, { bundle: false });
        expect(checked.diagnostics).toEqual(full.diagnostics);
        expect(checked.files).toEqual(full.files);
        expect(checked.ok).toBe(full.ok);
        expect(checked.bundle).toBeUndefined();
        // The third round checks a broken package.
        writeFileSync(broken, readFileSync(broken, 'utf8').replace('{{notes.style}}', '{{notes.styel}}'));
      }
      expect(createCompiler().build(path.join(work, 'notebook/plugin.json'), { bundle: false }).ok).toBe(false);
    } finally {
      cleanup(work);
    }
  });
});

describe('berrypack lsp --stdio, through a real LSP client', () => {
  let work: string;
  let client: Client;

  beforeAll(async () => {
    work = copyFixtures(['notebook', 'imports', 'broken']);
    const child = spawn(process.execPath, [BIN, 'lsp', '--stdio'], { cwd: work, stdio: ['pipe', 'pipe', 'inherit'] });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    connection.listen();
    client = new Client(connection, child);
    const init = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: pathToFileURL(work).href,
      capabilities: {},
      workspaceFolders: null,
    });
    expect(init.capabilities).toMatchObject({
      hoverProvider: true,
      definitionProvider: true,
      completionProvider: expect.any(Object),
      codeActionProvider: expect.any(Object),
    });
    await connection.sendNotification(InitializedNotification.type, {});
  });

  afterAll(async () => {
    if (client) {
      const exited = new Promise((resolve) => client.child.once('exit', resolve));
      await client.connection.sendRequest(ShutdownRequest.type).catch(() => undefined);
      await client.connection.sendNotification(ExitNotification.type).catch(() => undefined);
      await exited;
      client.connection.dispose();
    }
    cleanup(work);
  });

  it('reports on open what `check` reports: the same code, rule, range (0-based) and hint, and offers to quote the value', async () => {
    const file = path.join(work, 'broken/colon-trap/summarize.md');
    const uri = client.open(file);
    const [d] = await client.diagnosticsOf(uri, (l) => l.length > 0);
    const cli = JSON.parse(berrypack(['check', file, '--json']).stdout).diagnostics[0];
    expect(d).toMatchObject({
      code: cli.code,
      source: 'berrypack',
      range: { start: { line: cli.line - 1, character: cli.column - 1 }, end: { line: cli.endLine - 1, character: cli.endColumn - 1 } },
      data: { rule: cli.rule, hint: cli.hint },
    });
    expect(d!.message).toContain(cli.message);
    const actions = await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range: d!.range, context: { diagnostics: [d!] } });
    const quote = actions!.find((a) => a.title === 'Quote the value') as { edit: { changes: Record<string, { newText: string }[]> } };
    expect(quote.edit.changes[uri]![0]!.newText).toBe("'Note: summaries must stay under 100 words'");
  });

  it('converts positions for a BOM, CRLF line ends and characters outside the BMP', async () => {
    const file = path.join(work, 'broken/colon-trap/emoji.md');
    const text = '\uFEFF---\r\nname: emoji\r\ndescription: 😀 Note: two 😀 here\r\nmodel:\r\n  select:\r\n    operation: generation\r\n---\r\nHi.\r\n';
    writeFileSync(file, text);
    const uri = client.open(file, text);
    const [d] = await client.diagnosticsOf(uri, (l) => l.length > 0);
    expect(d).toMatchObject({ code: 'BP1050', range: { start: at(text, '😀 Note'), end: at(text, 'here', 4) } });
  });

  it('checks plugin.json and method documents', async () => {
    const manifest = path.join(work, 'notebook/plugin.json');
    const text = readFileSync(manifest, 'utf8');
    const uri = client.open(manifest);
    await client.diagnosticsOf(uri, (l) => l.length === 0);
    client.change(uri, text.replace('"version": "1"', '"version": 1'));
    const [d] = await client.diagnosticsOf(uri, (l) => l.length > 0);
    expect(d).toMatchObject({ code: 'BP2007', range: { start: at(text, '"1"'), end: at(text, '"1"', 1) }, data: { hint: 'quote it: `"version": "1"`' } });
    client.change(uri, text);
    await client.diagnosticsOf(uri, (l) => l.length === 0);

    const method = path.join(work, 'search.method.yaml');
    const doc =
      'format: method/2\nname: search_topic\ngoal: Finds pages about a topic.\ninputs:\n  query:\n    type: text\n    description: What to search for.\nsteps:\n  search:\n    in:\n      query: inputs.querry\n    do: Search the web for {{query}} and return the titles found.\n    out:\n      titles:\n        type: list\n        description: Titles of matching pages.\n        items:\n          type: text\nresult: titles\n';
    writeFileSync(method, doc);
    const [m] = await client.diagnosticsOf(client.open(method, doc), (l) => l.length > 0);
    expect(m).toMatchObject({ code: 'BP6061', range: { start: at(doc, 'inputs.querry') }, data: { hint: 'did you mean `inputs.query`?' } });
  });

  it('answers every request on text that does not parse, and keeps running', async () => {
    const file = path.join(work, 'notebook/routines/odd.md');
    const texts = [
      '---\nname: [unclosed\ntools:\n  - {{\n',
      '---\n' + '  - a:\n'.repeat(200) + '---\n{{',
      '\uFEFF---\r\nname: x\r\n\u0000\u202e: y\r\n---\r\n[[\r\n',
      '',
      '---',
    ];
    const uri = client.open(file, texts[0]!);
    for (const text of texts) {
      client.change(uri, text);
      const lines = Math.max(1, text.split('\n').length);
      for (let line = 0; line < Math.min(lines, 6); line++) {
        for (const character of [0, 1, 3, 40]) {
          const position = { line, character };
          expect(Array.isArray(await client.complete(uri, position))).toBe(true);
          await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
          await client.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position });
        }
      }
    }
    // Not on disk, so not part of the package: still checked on its own.
    client.change(uri, '---\nname: odd\n---\nText.\n');
    expect((await client.diagnosticsOf(uri, (l) => l.some((d) => d.code === 'BP1060'))).map((d) => d.code)).toEqual(['BP1060']);
    client.change(uri, '---\nname: odd\ndescription: Fine now.\n---\nText.\n');
    await client.diagnosticsOf(uri, (l) => l.length === 0);
  });

  it('checks the package around the open file on every change, with did-you-mean fixes and diagnostics for the other files', { timeout: 240_000 }, async () => {
    const converse = path.join(work, 'notebook/routines/converse.md');
    const text = readFileSync(converse, 'utf8');
    const uri = client.open(converse);
    expect(await client.diagnosticsOf(uri, () => true)).toEqual([]);
    client.change(uri, text.replace('{{notes.style}}', '{{notes.styel}}'));
    const [d] = await client.diagnosticsOf(uri, (l) => l.some((x) => x.code === 'BP2201'));
    expect(d).toMatchObject({
      code: 'BP2201',
      range: { start: at(text, 'notes.style}}'), end: at(text, 'notes.style}}', 'notes.style'.length) },
      data: { rule: 'TPL-1' },
    });
    const actions = await client.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range: d!.range, context: { diagnostics: [d!] } });
    expect(actions!.map((a) => a.title)).toContain('Replace `notes.styel` with `notes.style`');

    // An unsaved rename in another open file is seen by the package check of its callers.
    client.change(uri, text);
    await client.diagnosticsOf(uri, (l) => l.length === 0);
    const style = path.join(work, 'notebook/routines/notes/style.md');
    const styleUri = client.open(style);
    client.change(styleUri, readFileSync(style, 'utf8').replace('name: notes.style', 'name: notes.stile'));
    const composeUri = pathToFileURL(path.join(work, 'notebook/routines/notes/compose.md')).href;
    // REF-5: the include now names a file, not a declared name.
    const [missing] = await client.diagnosticsOf(composeUri, (l) => l.some((x) => x.code === 'BP2104'));
    expect(missing!.data).toMatchObject({ rule: 'REF-5', hint: expect.stringContaining('did you mean `notes.stile`?') });
    expect((await client.diagnosticsOf(uri, (l) => l.length > 0)).map((x) => x.code)).toContain('BP2104');
    client.change(styleUri, readFileSync(style, 'utf8'));
    await client.diagnosticsOf(composeUri, (l) => l.length === 0);
  });

  it('completes frontmatter keys per kind with their documentation, routine names, include names, nested keys and schema keywords', async () => {
    const converse = path.join(work, 'notebook/routines/converse.md');
    const uri = pathToFileURL(converse).href;
    const text = readFileSync(converse, 'utf8');
    const edited = text
      .replace('tools:\n', 'out\ntools:\n  - \n')
      .replace('  max_output_tokens: 2000\n', '  max_output_tokens: 2000\n  select:\n    operation: generation\n    \n')
      .replace(/^ {2}select:\n {4}operation: generation\n {4}interaction: request\n/m, '');
    client.change(uri, edited);
    const keys = await client.complete(uri, at(edited, 'out\ntools', 3));
    const labels = keys.map((k) => k.label);
    expect(labels).toEqual(expect.arrayContaining(['output', 'next', 'compaction', 'port', 'configure']));
    expect(labels).not.toContain('name'); // already written
    expect(labels).not.toContain('language'); // a code routine's field
    expect(keys.find((k) => k.label === 'port')!.documentation).toMatchObject({ value: expect.stringContaining('exactly `input`, `limits`, `output`') });

    const names = (await client.complete(uri, at(edited, '  - \n  - notes.compose', 4))).map((k) => k.label);
    expect(names).toEqual(expect.arrayContaining(['notes.compose', 'notes.triage', 'search.answer', 'search.rank', 'notes.count']));
    expect(names).not.toContain('converse');

    const select = (await client.complete(uri, at(edited, '    operation: generation\n    \n', '    operation: generation\n    '.length))).map((k) => k.label);
    expect(select).toEqual(expect.arrayContaining(['interaction', 'context_length', 'input_modalities']));
    expect(select).not.toContain('operation');

    const includes = (await client.complete(uri, at(edited, '{{notes.style}}', 2))).map((k) => k.label);
    expect(includes).toEqual(['notes.style']);

    // Names where next, configure.routine, route.routine and compaction.summary take one.
    const more = edited.replace('out\ntools:', 'next: \nconfigure:\n  routine: \ncompaction:\n  summary: \ntools:');
    client.change(uri, more);
    for (const key of ['next: ', '  routine: ', '  summary: ']) {
      const offered = (await client.complete(uri, at(more, `${key}\n`, key.length))).map((k) => k.label);
      expect(offered, key).toEqual(expect.arrayContaining(['notes.compose', 'search.rank']));
    }
    const operation = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: at(more, 'operation:', 2) });
    expect((operation!.contents as { value: string }).value).toContain('**model.select.operation**: Required: `generation` or `classification`.');

    const schema = edited.replace('  required:\n    - message\n', '  \n');
    client.change(uri, schema);
    const keywords = (await client.complete(uri, at(schema, 'type: object\n  \n', 'type: object\n  '.length))).map((k) => k.label);
    expect(keywords).toEqual(expect.arrayContaining(['required', 'additionalProperties', 'maxProperties', 'propertyNames']));
    expect(keywords).not.toContain('properties'); // already written in this mapping
    expect(keywords).not.toContain('minimum'); // not a keyword of `type: object`
    client.change(uri, text);
  });

  it("hovers a routine name (title, description, schemas) and a key (the spec's words), and goes to definitions", async () => {
    const converse = path.join(work, 'notebook/routines/converse.md');
    const uri = pathToFileURL(converse).href;
    const text = readFileSync(converse, 'utf8');
    const routine = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: at(text, '- notes.compose', 4) });
    const card = (routine!.contents as { value: string }).value;
    expect(card).toContain('**notes.compose** · model');
    expect(card).toContain('Turns a rough message into a tidy note with a title and tags.');
    expect(card).toContain('"maxItems": 5');
    const key = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: at(text, 'tools:', 1) });
    expect((key!.contents as { value: string }).value).toContain('singleton mappings from a name to options');

    const tool = (await client.connection.sendRequest(DefinitionRequest.type, {
      textDocument: { uri },
      position: at(text, '- search.answer', 5),
    })) as Location[];
    const answer = path.join(work, 'notebook/routines/search/answer.md');
    expect(tool).toEqual([
      {
        uri: pathToFileURL(answer).href,
        range: { start: at(readFileSync(answer, 'utf8'), 'search.answer'), end: at(readFileSync(answer, 'utf8'), 'search.answer', 'search.answer'.length) },
      },
    ]);
    const include = (await client.connection.sendRequest(DefinitionRequest.type, {
      textDocument: { uri },
      position: at(text, '{{notes.style}}', 4),
    })) as Location[];
    expect(include.map((l) => l.uri)).toEqual([pathToFileURL(path.join(work, 'notebook/routines/notes/style.md')).href]);

    const compose = path.join(work, 'notebook/routines/notes/compose.md');
    const composeText = readFileSync(compose, 'utf8');
    const composeUri = client.open(compose);
    const next = (await client.connection.sendRequest(DefinitionRequest.type, {
      textDocument: { uri: composeUri },
      position: at(composeText, 'notes.count', 3),
    })) as Location[];
    expect(next.map((l) => l.uri)).toEqual([pathToFileURL(path.join(work, 'notebook/routines/notes/count.md')).href]);

    // plugin.json: an agent's entry and an exports item resolve with no caller namespace (REF-3).
    const manifest = path.join(work, 'notebook/plugin.json');
    const manifestText = readFileSync(manifest, 'utf8');
    const manifestUri = pathToFileURL(manifest).href;
    const entry = (await client.connection.sendRequest(DefinitionRequest.type, {
      textDocument: { uri: manifestUri },
      position: at(manifestText, '"converse"', 2),
    })) as Location[];
    expect(entry.map((l) => l.uri)).toEqual([uri]);
    const exported = (await client.connection.sendRequest(DefinitionRequest.type, {
      textDocument: { uri: manifestUri },
      position: at(manifestText, '"search.answer"', 3),
    })) as Location[];
    expect(exported.map((l) => l.uri)).toEqual([pathToFileURL(answer).href]);
    const exportCard = await client.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri: manifestUri },
      position: at(manifestText, '"notes.compose"', 3),
    });
    expect((exportCard!.contents as { value: string }).value).toContain('**notes.compose** · model');
    const title = await client.connection.sendRequest(DefinitionRequest.type, {
      textDocument: { uri: manifestUri },
      position: at(manifestText, '"Notebook"', 2),
    });
    expect(title).toEqual([]);

    // An import alias goes to the routine the import exports, in the other package.
    const greet = path.join(work, 'imports/app/greet.md');
    const greetText = readFileSync(greet, 'utf8');
    const greetUri = client.open(greet);
    const shout = (await client.connection.sendRequest(DefinitionRequest.type, {
      textDocument: { uri: greetUri },
      position: at(greetText, '- shout', 3),
    })) as Location[];
    expect(shout.map((l) => l.uri)).toEqual([pathToFileURL(path.join(work, 'imports/lib/text/shout.md')).href]);
    const unknown = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri: greetUri }, position: at(greetText, 'Greet', 1) });
    expect(unknown).toBeNull();
  });
});
