import type { SingularPath } from '../reference/jsonpath.js';
import { sortTargets, type Target } from '../reference/resolve-name.js';
import type { Site } from '../reference/resolve-report.js';
import type { AnalyzedBody, BodyPart } from './analyze-body.js';

/**
 * A body in its final decoded form: `text` is literal (escapes applied, includes expanded,
 * `[[dependencies]]` kept as written), `path` a runtime template as written, `env` a
 * placeholder rendered at preparation. The runtime never re-parses escapes.
 */
export type TemplateSegment = { text: string } | { path: string } | { env: string };

/** A runtime template as it ends up in an expanded body, with where it is written. */
export interface PathUse {
  text: string;
  path: SingularPath;
  site: Site;
}

export interface Expansion {
  segments: TemplateSegment[];
  /** Names and import aliases of instructions included, transitively, sorted. */
  includes: string[];
  dependencies: Target[];
  readers: string[];
  env: string[];
  /** Every runtime template, included ones too, in order. */
  paths: PathUse[];
}

/**
 * TPL-1: expands includes recursively at build time and refuses include cycles, naming the
 * whole cycle once. Each source's expansion is computed once and reused.
 */
/** Deeper nesting is refused rather than risking the call stack; real bodies nest a few levels. */
export const MAX_INCLUDE_DEPTH = 128;

export class IncludeExpander {
  private readonly done = new Map<string, Expansion>();
  private readonly stack: string[] = [];
  /** `edges[k]`: where `stack[k]` includes `stack[k + 1]`. */
  private readonly edges: Site[] = [];
  private readonly cycles = new Set<string>();
  private tooDeep = false;

  constructor(
    private readonly bodies: ReadonlyMap<string, AnalyzedBody>,
    /** An imported instructions body, analyzed as written at the include `site`. */
    private readonly importBody: (alias: string, site: Site) => AnalyzedBody | undefined,
    /** Wraps the computation of one source's expansion (not a reuse), e.g. to keep its diagnostics. */
    private readonly around: <T>(name: string, compute: () => T) => T = (_name, compute) => compute(),
  ) {}

  /** Drops a source's expansion, for a body that changed; only a source nothing includes (not instructions). */
  forget(name: string): void {
    this.done.delete(name);
  }

  /** The expansion of a source's body; undefined for a source without one (code). */
  expand(name: string): Expansion | undefined {
    const known = this.done.get(name);
    if (known) return known;
    const body = this.bodies.get(name);
    if (!body) return undefined;
    return this.around(name, () => this.compute(name, body));
  }

  private compute(name: string, body: AnalyzedBody): Expansion {
    const out = new ExpansionBuilder();
    out.dependencies.push(...body.dependencies);
    this.stack.push(name);
    for (const part of body.parts) this.add(out, part);
    this.stack.pop();
    const expansion = out.build();
    this.done.set(name, expansion);
    return expansion;
  }

  private add(out: ExpansionBuilder, part: BodyPart): void {
    if (part.kind !== 'include') {
      out.part(part);
      return;
    }
    const { target, site } = part;
    if (target.kind === 'import') {
      const body = this.importBody(target.alias, site);
      if (!body) return;
      out.includes.add(target.alias);
      // An imported body was analyzed with every position at this include site, and holds no includes.
      for (const inner of body.parts) if (inner.kind !== 'include') out.part(inner);
      return;
    }
    if (target.kind !== 'source') return;
    const at = this.stack.indexOf(target.name);
    if (at !== -1) {
      this.reportCycle(at, site);
      return;
    }
    if (this.stack.length >= MAX_INCLUDE_DEPTH) {
      if (!this.tooDeep) {
        this.tooDeep = true;
        site.reporter.report(
          'BP2205',
          site.span,
          `Unexpected include nested ${this.stack.length + 1} levels deep, expected at most ${MAX_INCLUDE_DEPTH} levels`,
          {
            hint: 'include the shared instructions from fewer levels: a body can include several sources side by side',
          },
        );
      }
      return;
    }
    this.edges.push(site);
    const child = this.expand(target.name);
    this.edges.pop();
    out.includes.add(target.name);
    if (child) out.merge(child);
  }

  private reportCycle(from: number, closing: Site): void {
    const members = this.stack.slice(from);
    const sites = [...this.edges.slice(from), closing];
    // Rotate to start at the smallest name, so the cycle is reported once, the same way from any entry point.
    const start = members.indexOf([...members].sort()[0]!);
    const names = [...members.slice(start), ...members.slice(0, start)];
    const edges = [...sites.slice(start), ...sites.slice(0, start)];
    const key = names.join('\n');
    if (this.cycles.has(key)) return;
    this.cycles.add(key);
    const path = [...names, names[0]!].map((n) => `\`${n}\``).join(' → ');
    const [first, ...rest] = edges;
    const includes = (i: number): string => `\`${names[i]}\` includes \`${names[(i + 1) % names.length]}\` here`;
    first!.reporter.report('BP2203', first!.span, `Unexpected include cycle ${path}, expected instructions that do not include themselves`, {
      hint:
        names.length === 1
          ? 'remove the include of the source in its own body'
          : 'remove one of these includes; text both need belongs in a third instructions source that each includes',
      related: rest.map((site, i) => site.reporter.locate(site.span, includes(i + 1))),
    });
  }
}

class ExpansionBuilder {
  readonly segments: TemplateSegment[] = [];
  readonly includes = new Set<string>();
  readonly dependencies: Target[] = [];
  readonly readers = new Set<string>();
  readonly env = new Set<string>();
  readonly paths: PathUse[] = [];

  part(part: Exclude<BodyPart, { kind: 'include' }>): void {
    if (part.kind === 'text') this.text(part.text);
    else if (part.kind === 'env') {
      this.segments.push({ env: part.name });
      this.env.add(part.name);
    } else {
      this.segments.push({ path: part.text });
      if (part.reader !== undefined) this.readers.add(part.reader);
      this.paths.push({ text: part.text, path: part.path, site: part.site });
    }
  }

  merge(child: Expansion): void {
    for (const segment of child.segments) {
      if ('text' in segment) this.text(segment.text);
      else this.segments.push(segment);
    }
    for (const name of child.includes) this.includes.add(name);
    this.dependencies.push(...child.dependencies);
    for (const reader of child.readers) this.readers.add(reader);
    for (const name of child.env) this.env.add(name);
    this.paths.push(...child.paths);
  }

  build(): Expansion {
    return {
      // At its exact length: the segments live to assembly, and a list grown by `push` keeps 17 slots.
      segments: this.segments.slice(),
      includes: [...this.includes].sort(),
      dependencies: sortTargets(this.dependencies),
      readers: [...this.readers].sort(),
      env: [...this.env].sort(),
      paths: this.paths,
    };
  }

  private text(text: string): void {
    if (text === '') return;
    const last = this.segments[this.segments.length - 1];
    if (last && 'text' in last) last.text += text;
    else this.segments.push({ text });
  }
}
