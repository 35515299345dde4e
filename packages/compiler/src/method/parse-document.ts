import { LineIndex } from '../diagnostics/line-index.js';
import { Reporter } from '../diagnostics/reporter.js';
import { parseJsonWithPositions } from '../json/parse-json.js';
import { decodeSourceText, reportUndecodable } from '../source/normalize-text.js';
import { parseFrontmatter } from '../source/parse-frontmatter.js';
import type { YNode } from '../source/yaml-tree.js';

const METHOD_FILE = /\.method\.(?:ya?ml|json)$/;

/** `*.method.yaml`, `*.method.yml`, `*.method.json`. */
export function isMethodFile(file: string): boolean {
  return METHOD_FILE.test(file);
}

export interface ParsedDocument {
  reporter: Reporter;
  /** Undefined after a syntax error (or undecodable bytes). */
  tree: YNode | undefined;
}

/**
 * Decodes (UTF-8, no BOM, LF) and parses a method document: JSON for `.json`, YAML 1.2
 * core otherwise, both into the located tree the routine checker uses. The YAML profile
 * keeps SRC-2's refusals but not SRC-5's style warnings (decision: method/2's own examples
 * write flow mappings such as `each: {person: …}`), and refuses `!ref`, which means
 * nothing in a method.
 */
export function parseMethodDocument(file: string, input: Uint8Array | string): ParsedDocument {
  const decoded = decodeSourceText(input);
  if (!decoded.ok) {
    const reporter = reportUndecodable(file, input as Uint8Array, decoded, 'BP1004', {
      tooLarge: 'a method document is a small text file',
      invalid: 'save the file as UTF-8',
    });
    return { reporter, tree: undefined };
  }
  const reporter = new Reporter(file, new LineIndex(decoded.text));
  if (/\.json$/i.test(file)) {
    const tree = parseJsonWithPositions(decoded.text, reporter);
    for (const d of reporter.diagnostics) {
      // The JSON parser names plugin.json's rule; here the same refusal is the method's.
      if (d.code === 'BP2001') Object.assign(d, { code: 'BP6002', rule: 'MTH-1' });
    }
    return { reporter, tree };
  }
  const tree = parseFrontmatter(decoded.text, 0, reporter);
  const kept = reporter.diagnostics.filter((d) => d.rule !== 'SRC-5');
  reporter.diagnostics.splice(0, reporter.diagnostics.length, ...kept);
  if (tree) refuseRefs(reporter, tree);
  return { reporter, tree };
}

function refuseRefs(reporter: Reporter, root: YNode): void {
  const work: YNode[] = [root];
  while (work.length > 0) {
    const node = work.pop()!;
    if (node.kind === 'map') for (const e of node.entries) work.push(e.value);
    else if (node.kind === 'seq') for (const item of node.items) work.push(item);
    else if (node.ref) {
      // Reported once here; the rest of the checker then sees the plain string.
      node.ref = false;
      reporter.report('BP1014', node, 'Unexpected tag `!ref`, expected no tag (a method document names data by reference strings)', {
        hint: 'remove `!ref`; write a reference such as `inputs.query` or an output name',
      });
    }
  }
}
