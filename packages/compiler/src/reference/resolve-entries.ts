import type { Reporter, Span } from '../diagnostics/reporter.js';
import type { Target } from './resolve-name.js';
import { resolveAt, type Place, type ResolveContext } from './resolve-report.js';

export interface PublicDefinition {
  /** As written in plugin.json: the public name importers use with `export`. */
  name: string;
  target: Target;
  /** Some agent has it as its entry (entries are exported automatically). */
  entry: boolean;
}

const ENTRY: Place = { missing: 'BP2130', what: 'agent entry', expected: 'the name of a model or code routine of this package' };
const EXPORT: Place = { missing: 'BP2132', what: 'export', expected: 'the name of a source of this package' };

/**
 * MAN-3 (package part) with REF-3: agent entries and exports resolve with no caller
 * namespace. An entry is a local model or code routine; an export is any local source
 * (decision: instructions may be exported, for importers to include). Sorted by name.
 */
export function resolvePublic(
  ctx: ResolveContext,
  r: Reporter,
  agents: readonly { id: string; entry: string; entrySpan: Span }[],
  exports: readonly { name: string; span: Span }[],
): PublicDefinition[] {
  const byName = new Map<string, PublicDefinition>();
  for (const agent of agents) {
    const target = resolveAt(ctx, agent.entry, undefined, { reporter: r, span: agent.entrySpan }, ENTRY);
    if (!target) continue;
    const kind = target.kind === 'source' ? ctx.table.sources.get(target.name)?.kind : undefined;
    if (kind === 'model' || kind === 'code') {
      byName.set(agent.entry, { name: agent.entry, target, entry: true });
      continue;
    }
    const what = target.kind === 'import' ? `the import \`${target.alias}\`` : `instructions \`${agent.entry}\``;
    r.report('BP2131', agent.entrySpan, `Unexpected ${what} as the entry of agent \`${agent.id}\`, expected a model or code routine of this package`, {
      hint:
        target.kind === 'import'
          ? 'an agent starts a routine of its own package: write a local routine that calls the import in `tools` or `next`'
          : 'instructions are not callable: make the entry a model routine that includes them with `{{name}}`',
    });
  }
  for (const exported of exports) {
    const target = resolveAt(ctx, exported.name, undefined, { reporter: r, span: exported.span }, EXPORT);
    if (!target) continue;
    if (target.kind !== 'source') {
      r.report('BP2133', exported.span, `Unexpected the import \`${exported.name}\` in \`exports\`, expected the name of a source of this package`, {
        hint: 'a package exports its own sources; an importer of this package can import the other package itself',
      });
      continue;
    }
    if (!byName.has(exported.name)) byName.set(exported.name, { name: exported.name, target, entry: false });
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
