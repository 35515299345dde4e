import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { naturalCompare } from '../packages/cli/src/inspect-html/graph.js';
import { squarify } from '../packages/cli/src/inspect-html/layout.js';
import { Browser, chromiumOrSkip, type Page } from './support/chromium.js';
import { berrypack, ROOT } from './support/cli.js';
import { cleanup, copyFixtures } from './support/temp.js';

/** Screenshots are kept for a person to look at (gitignored). */
const ARTIFACTS = path.join(ROOT, 'test/artifacts');

interface Content {
  agents: Record<string, { entry: string }>;
  exports: { target: { kind: string; name?: string } }[];
  sources: Record<
    string,
    {
      kind: string;
      path: string;
      tools?: { target: { kind: string; name?: string; alias?: string } }[];
      includes?: string[];
      next?: { to?: { kind: string; name: string } | null };
      code?: { imports: string[] };
    }
  >;
  imports: { name: string }[];
  code: { total: number; entries: { path: string; size: number }[] };
}

function buildAndInspect(work: string, manifest: string): { bundle: string; page: string; content: Content } {
  const out = path.join(work, 'dist');
  const built = berrypack(['build', manifest, '--out-dir', out, '--json'], { cwd: work });
  expect(built.code, built.stderr).toBe(0);
  const bundle = path.join(work, JSON.parse(built.stdout).file);
  const page = path.join(work, `${path.basename(path.dirname(manifest))}.html`);
  const r = berrypack(['inspect', bundle, '--html', page, '--json'], { cwd: work });
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout).html).toBe(path.basename(page));
  return { bundle, page, content: JSON.parse(readFileSync(bundle, 'utf8')).content };
}

/** What the graph must show, read straight from the bundle's routine records. */
function expectedEdges(content: Content): string[] {
  const target = (t: { kind: string; name?: string; alias?: string }) =>
    t.kind === 'source' ? `routine:${t.name}` : t.kind === 'import' ? `import:${t.alias}` : `external:${t.name}`;
  const aliases = new Set(content.imports.map((i) => i.name));
  const edges: string[] = [];
  for (const [name, s] of Object.entries(content.sources)) {
    for (const t of s.tools ?? []) edges.push(`routine:${name} ${target(t.target)} tools`);
    for (const inc of s.includes ?? [])
      edges.push(`routine:${name} ${content.sources[inc] || !aliases.has(inc) ? `routine:${inc}` : `import:${inc}`} includes`);
    if (s.next?.to) edges.push(`routine:${name} ${target(s.next.to)} next`);
    for (const m of s.code?.imports ?? []) edges.push(`routine:${name} module:${m} imports`);
  }
  return edges.sort();
}

describe('inspect --html without a browser', () => {
  it('squarify gives every item an area proportional to its weight, tiling the rectangle', () => {
    const items = [6, 6, 4, 3, 2, 2, 1, 0];
    const cells = squarify(items, (w) => w, 600, 400);
    expect(cells).toHaveLength(7); // weight 0 gets no cell
    for (const c of cells) expect(c.width * c.height).toBeCloseTo((c.item / 24) * 240_000, 6);
    for (const c of cells) {
      expect(c.x + c.width).toBeLessThanOrEqual(600 + 1e-9);
      expect(c.y + c.height).toBeLessThanOrEqual(400 + 1e-9);
    }
  });

  it('orders names naturally (model2 before model10), the same on every machine', () => {
    expect(['m10', 'm2', 'a.b1', 'm1', 'a.b01'].sort(naturalCompare)).toEqual(['a.b1', 'a.b01', 'm1', 'm2', 'm10']);
  });

  it('writes nothing when the bundle does not verify, and names the page in text output', () => {
    const work = copyFixtures(['notebook']);
    try {
      const { bundle } = buildAndInspect(work, 'notebook/plugin.json');
      const text = berrypack(['inspect', bundle, '--html', 'again.html'], { cwd: work });
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('page: again.html');
      const html = readFileSync(path.join(work, 'again.html'), 'utf8');
      // The size account starts with the file itself: its bytes, its format, and the text it captures.
      const textBytes = (JSON.parse(readFileSync(bundle, 'utf8')) as { content: { files: { text: string }[] } }).content.files.reduce(
        (sum, f) => sum + Buffer.byteLength(f.text),
        0,
      );
      const bytes = readFileSync(bundle).length;
      expect(html).toContain(
        `<p>Bundle file: <strong>${bytes.toLocaleString('en-US')}</strong> bytes, format <code>berrypack/2</code> (${(bytes / textBytes).toFixed(2)}× the ${textBytes.toLocaleString('en-US')} bytes of text it captures).</p>`,
      );
      // Self-contained: no URL the browser could fetch.
      expect(html).not.toMatch(/\b(?:src|href)=|url\(\s*['"]?(?!#)|@import|https?:\/\/(?!www\.w3\.org)/);
      const unwritable = berrypack(['inspect', bundle, '--html', 'no/such/dir/x.html'], { cwd: work });
      expect(unwritable.code).toBe(2);
      expect(unwritable.stderr).toMatch(/^berrypack inspect: Cannot write --html .*ENOENT\n$/);
      expect(existsSync(path.join(work, 'no'))).toBe(false);
      writeFileSync(bundle, readFileSync(bundle, 'utf8').replace('Notebook', 'Notebooc'));
      const bad = berrypack(['inspect', bundle, '--html', 'bad.html'], { cwd: work });
      expect(bad.code).toBe(1);
      expect(existsSync(path.join(work, 'bad.html'))).toBe(false);
    } finally {
      cleanup(work);
    }
  });
});

const chromium = chromiumOrSkip('inspect --html in a browser');

describe.skipIf(!chromium)('inspect --html in headless Chromium', () => {
  let browser: Browser;
  let work: string;
  beforeAll(() => {
    browser = Browser.launch(chromium!);
    work = copyFixtures(['notebook', 'imports']);
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    cleanup(work);
  });

  async function open(file: string, scheme: 'light' | 'dark'): Promise<Page> {
    const page = await browser.newPage();
    await page.send('Emulation.setDeviceMetricsOverride', { width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false });
    await page.send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value: scheme }] });
    await page.goto(pathToFileURL(file).href);
    return page;
  }

  it('shows every routine, agent, export and edge of the bundle, and a treemap whose areas are the size account', async () => {
    const { page: file, content } = buildAndInspect(work, 'notebook/plugin.json');
    const page = await open(file, 'light');
    const nodes = await page.evaluate<{ id: string; kind: string; agent: boolean; exported: boolean; focusable: boolean }[]>(
      `[...document.querySelectorAll('.node')].map((n) => ({ id: n.dataset.id, kind: n.dataset.kind, agent: n.classList.contains('agent'), exported: n.classList.contains('exported'), focusable: n.tabIndex === 0 }))`,
    );
    const routines = nodes.filter((n) => n.id.startsWith('routine:'));
    expect(routines.map((n) => n.id).sort()).toEqual(
      Object.keys(content.sources)
        .map((n) => `routine:${n}`)
        .sort(),
    );
    for (const n of routines) expect(n.kind).toBe(content.sources[n.id.slice('routine:'.length)]!.kind);
    const entries = new Set(Object.values(content.agents).map((a) => a.entry));
    expect(
      routines
        .filter((n) => n.agent)
        .map((n) => n.id.slice(8))
        .sort(),
    ).toEqual([...entries].sort());
    expect(
      routines
        .filter((n) => n.exported)
        .map((n) => n.id.slice(8))
        .sort(),
    ).toEqual(content.exports.map((e) => e.target.name!).sort());
    expect(nodes.every((n) => n.focusable)).toBe(true);
    const edges = await page.evaluate<string[]>(
      `[...document.querySelectorAll('.edge')].map((e) => e.dataset.from + ' ' + e.dataset.to + ' ' + e.dataset.kind)`,
    );
    expect(edges.filter((e) => !e.endsWith(' refs')).sort()).toEqual(expectedEdges(content));
    expect(expectedEdges(content).some((e) => e.endsWith(' next'))).toBe(true);
    expect(expectedEdges(content).some((e) => e.endsWith(' includes'))).toBe(true);

    const cells = await page.evaluate<{ path: string; size: number; area: number }[]>(
      `[...document.querySelectorAll('#treemap .cell')].map((c) => { const r = c.getBoundingClientRect(); return { path: c.dataset.path, size: Number(c.dataset.size), area: r.width * r.height }; })`,
    );
    const box = await page.evaluate<{ area: number }>(
      `(() => { const t = document.getElementById('treemap'); return { area: t.clientWidth * t.clientHeight }; })()`,
    );
    expect(cells.map((c) => `${c.path} ${c.size}`).sort()).toEqual(content.code.entries.map((e) => `${e.path} ${e.size}`).sort());
    for (const c of cells) expect(c.area / box.area).toBeCloseTo(c.size / content.code.total, 2);

    // A click on a routine shows its frontmatter, schemas and body.
    const at = await page.evaluate<{ x: number; y: number }>(
      `(() => { const r = document.querySelector('[data-id="routine:notes.compose"] rect.box').getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
    );
    await page.click(at.x, at.y);
    const shown = await page.evaluate<{ title: string; text: string }>(
      `({ title: document.getElementById('details-title').textContent, text: document.getElementById('details-body').textContent })`,
    );
    expect(shown.title).toBe('notes.compose');
    expect(shown.text).toContain('name: notes.compose');
    expect(shown.text).toContain('Output schema');
    expect(shown.text).toContain('"maxItems": 5');
    expect(shown.text).toContain('Rewrite the note below following the house style.');

    // Keyboard: Tab reaches the graph's nodes, the arrow keys move between them, Enter opens one.
    await page.evaluate(`document.querySelector('[data-id="routine:converse"]').focus()`);
    await page.press('ArrowDown', 'ArrowDown', 40);
    const focused = await page.evaluate<string>(`document.activeElement.dataset.id`);
    expect(focused).not.toBe('routine:converse');
    await page.press('Enter', 'Enter', 13);
    expect(await page.evaluate<string>(`document.getElementById('details-title').textContent`)).toBe(focused.replace(/^[a-z]+:/, ''));
    await page.press('Tab', 'Tab', 9);
    expect(await page.evaluate<string>(`document.activeElement.dataset.id ?? ''`)).not.toBe(focused);

    // Find a routine by name: type it, press Enter; the node gets the focus.
    await page.evaluate(`document.getElementById('find-input').focus()`);
    await page.send('Input.insertText', { text: 'search.rank' });
    await page.press('Enter', 'Enter', 13);
    expect(await page.evaluate<string>(`document.activeElement.dataset.id`)).toBe('routine:search.rank');
    expect(await page.evaluate<string>(`document.getElementById('details-title').textContent`)).toBe('search.rank');

    await page.evaluate(`document.querySelector('[data-id="routine:converse"]').dispatchEvent(new MouseEvent('click', { bubbles: true }))`);
    writeFileSync(path.join(ARTIFACTS, 'inspect-notebook-light.png'), await page.screenshot());
    expect(page.requests).toEqual([pathToFileURL(file).href]);
    expect(page.errors).toEqual([]);

    const dark = await open(file, 'dark');
    const colours = await dark.evaluate<{ bg: string; fg: string }>(
      `({ bg: getComputedStyle(document.body).backgroundColor, fg: getComputedStyle(document.body).color })`,
    );
    expect(colours).toEqual({ bg: 'rgb(20, 22, 27)', fg: 'rgb(230, 232, 238)' });
    writeFileSync(path.join(ARTIFACTS, 'inspect-notebook-dark.png'), await dark.screenshot());
    expect(dark.errors).toEqual([]);
  });

  it('shows a package import as its own node, reached by the tools and includes that name it', async () => {
    const { page: file, content } = buildAndInspect(work, 'imports/app/plugin.json');
    const page = await open(file, 'light');
    const edges = await page.evaluate<string[]>(
      `[...document.querySelectorAll('.edge')].map((e) => e.dataset.from + ' ' + e.dataset.to + ' ' + e.dataset.kind)`,
    );
    expect(edges.filter((e) => !e.endsWith(' refs')).sort()).toEqual(expectedEdges(content));
    expect(edges).toContain('routine:greet import:shout tools');
    const kinds = await page.evaluate<Record<string, string>>(
      `Object.fromEntries([...document.querySelectorAll('.node')].map((n) => [n.dataset.id, n.dataset.kind]))`,
    );
    expect(kinds['import:shout']).toBe('import');
    await page.evaluate(`document.querySelector('[data-id="import:shout"]').dispatchEvent(new MouseEvent('click', { bubbles: true }))`);
    expect(await page.evaluate<string>(`document.getElementById('details-body').textContent`)).toContain('text.shout');
    writeFileSync(path.join(ARTIFACTS, 'inspect-imports-light.png'), await page.screenshot());
    expect(page.errors).toEqual([]);
  });
});
