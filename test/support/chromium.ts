/* eslint-disable @typescript-eslint/no-explicit-any -- DevTools protocol messages are untyped JSON */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

/**
 * A headless Chromium driven over the Chrome DevTools Protocol through `--remote-debugging-pipe`
 * (fd 3: commands in, fd 4: replies and events out, NUL-separated JSON). Node only: no
 * WebSocket (Node 20 has no client) and no browser library to pin.
 */
export function findChromium(): string | undefined {
  const candidates = [process.env.BERRYPACK_CHROMIUM, 'chromium', 'chromium-browser', 'google-chrome'].filter((c): c is string => !!c);
  for (const c of candidates) {
    const found = path.isAbsolute(c) ? c : spawnSync('sh', ['-c', `command -v ${c}`], { encoding: 'utf8' }).stdout.trim();
    if (found) return found;
  }
  return undefined;
}

/** CONTRACTS.md: skip with a printed notice without a browser, fail under CI. */
export function chromiumOrSkip(suite: string): string | undefined {
  const found = findChromium();
  if (!found) {
    if (process.env.CI) throw new Error(`${suite}: Chromium is required under CI (install Debian's \`chromium\`; .ci/run does)`);
    console.warn(`[skip] ${suite}: no Chromium found (apt-get install chromium, or set BERRYPACK_CHROMIUM)`);
  }
  return found;
}

type Message = { id?: number; method?: string; params?: any; result?: any; error?: { message: string }; sessionId?: string };

export class Browser {
  private next = 1;
  private pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void; method: string }>();
  private listeners: ((m: Message) => void)[] = [];
  private buffer = '';

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const out = child.stdio[4] as Readable;
    out.setEncoding('utf8');
    out.on('data', (chunk: string) => {
      this.buffer += chunk;
      let end;
      while ((end = this.buffer.indexOf('\0')) !== -1) {
        const message = JSON.parse(this.buffer.slice(0, end)) as Message;
        this.buffer = this.buffer.slice(end + 1);
        this.dispatch(message);
      }
    });
    child.on('exit', () => {
      for (const p of this.pending.values()) p.reject(new Error(`Chromium exited during ${p.method}`));
      this.pending.clear();
    });
  }

  static launch(executable: string): Browser {
    const profile = mkdtempSync(path.join(os.tmpdir(), 'berrypack-chromium-'));
    const args = [
      '--headless=new',
      '--remote-debugging-pipe',
      `--user-data-dir=${profile}`,
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-extensions',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      '--mute-audio',
      '--font-render-hinting=none',
      'about:blank',
    ];
    // CONTRACTS.md: CI runs as root, where Chromium's sandbox cannot start.
    if (process.getuid?.() === 0) args.unshift('--no-sandbox');
    const child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    child.stderr!.resume();
    return new Browser(child, profile);
  }

  private dispatch(message: Message): void {
    if (message.id !== undefined) {
      const p = this.pending.get(message.id);
      if (!p) return;
      this.pending.delete(message.id);
      if (message.error) p.reject(new Error(`${p.method}: ${message.error.message}`));
      else p.resolve(message.result);
      return;
    }
    for (const l of [...this.listeners]) l(message);
  }

  send(method: string, params: object = {}, sessionId?: string): Promise<any> {
    const id = this.next++;
    const input = this.child.stdio[3] as Writable;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      input.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
    });
  }

  on(listener: (m: Message) => void): () => void {
    this.listeners.push(listener);
    return () => (this.listeners = this.listeners.filter((l) => l !== listener));
  }

  waitFor(method: string, sessionId: string, timeoutMs = 30_000): Promise<any> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => (off(), reject(new Error(`timed out waiting for ${method}`))), timeoutMs);
      const off = this.on((m) => {
        if (m.method === method && m.sessionId === sessionId) {
          clearTimeout(timer);
          off();
          resolve(m.params);
        }
      });
    });
  }

  async newPage(): Promise<Page> {
    const { targetId } = await this.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(this, sessionId);
    await Promise.all(['Page.enable', 'Runtime.enable', 'Network.enable', 'Log.enable'].map((m) => page.send(m)));
    return page;
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => this.child.once('exit', r));
    await this.send('Browser.close').catch(() => undefined);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    rmSync(this.profile, { recursive: true, force: true });
  }
}

export class Page {
  /** Every URL the page asked the network stack for, and every exception or console error. */
  readonly requests: string[] = [];
  readonly errors: string[] = [];

  constructor(
    private readonly browser: Browser,
    readonly sessionId: string,
  ) {
    browser.on((m) => {
      if (m.sessionId !== sessionId) return;
      if (m.method === 'Network.requestWillBeSent') this.requests.push(m.params.request.url);
      if (m.method === 'Runtime.exceptionThrown') this.errors.push(m.params.exceptionDetails.exception?.description ?? m.params.exceptionDetails.text);
      if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error') this.errors.push(m.params.entry.text);
      if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error') this.errors.push(JSON.stringify(m.params.args));
    });
  }

  send(method: string, params: object = {}): Promise<any> {
    return this.browser.send(method, params, this.sessionId);
  }

  async goto(url: string): Promise<void> {
    const loaded = this.browser.waitFor('Page.loadEventFired', this.sessionId);
    await this.send('Page.navigate', { url });
    await loaded;
  }

  async evaluate<T>(expression: string): Promise<T> {
    const r = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`evaluate: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value as T;
  }

  async click(x: number, y: number): Promise<void> {
    for (const type of ['mousePressed', 'mouseReleased']) await this.send('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 });
  }

  async press(key: string, code = key, keyCode = 0): Promise<void> {
    const text = key === 'Enter' ? '\r' : key === ' ' ? ' ' : undefined;
    await this.send('Input.dispatchKeyEvent', { type: text ? 'keyDown' : 'rawKeyDown', key, code, windowsVirtualKeyCode: keyCode, ...(text ? { text } : {}) });
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', key, code, windowsVirtualKeyCode: keyCode });
  }

  async screenshot(): Promise<Buffer> {
    const { data } = await this.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true });
    return Buffer.from(data, 'base64');
  }
}
