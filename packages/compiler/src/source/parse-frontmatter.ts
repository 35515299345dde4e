import type { Reporter } from '../diagnostics/reporter.js';
import { Converter, TooDeep } from './convert-yaml.js';
import { fastFrontmatter } from './fast-frontmatter.js';
import { deepestNesting, MAX_YAML_DEPTH } from './yaml-depth.js';
import { yamlModule } from './yaml-module.js';
import { reportSyntaxErrors } from './yaml-syntax-errors.js';
import { ScalarNode, type YNode } from './yaml-tree.js';

/**
 * Parses frontmatter as YAML 1.2 (core schema) and converts it to a located tree,
 * enforcing SRC-2 (duplicates, anchors, aliases, merge keys, tags, string keys),
 * SRC-5 (style warnings) and the syntax half of SRC-6. Returns undefined on a syntax
 * error: field checks on a broken tree would only add noise.
 */
export function parseFrontmatter(yaml: string, offset: number, reporter: Reporter, options: { refuseLoneSurrogates?: boolean } = {}): YNode | undefined {
  const deepest = deepestNesting(yaml);
  if (deepest.depth > MAX_YAML_DEPTH) {
    reporter.report(
      'BP1010',
      { start: offset + deepest.at, end: offset + deepest.at + 1 },
      `Unexpected nesting deeper than ${MAX_YAML_DEPTH} levels, expected a shallower frontmatter`,
      {
        hint: 'flatten the structure',
      },
    );
    return undefined;
  }
  const refuseLoneSurrogates = options.refuseLoneSurrogates === true;
  return fastFrontmatter(yaml, offset, refuseLoneSurrogates) ?? composedFrontmatter(yaml, offset, reporter, refuseLoneSurrogates);
}

/**
 * The frontmatter through yaml's Composer and Document and the converter: every input the
 * fast path declines, and so every diagnostic of the syntax and profile rules.
 */
export function composedFrontmatter(yaml: string, offset: number, reporter: Reporter, refuseLoneSurrogates: boolean): YNode | undefined {
  let doc;
  try {
    doc = yamlModule().parseDocument(yaml, {
      version: '1.2',
      schema: 'core',
      uniqueKeys: false,
      prettyErrors: false,
      strict: true,
      keepSourceTokens: false,
    });
  } catch (error) {
    // The yaml parser recurses once per nesting level: deep enough input overflows the stack,
    // and some of its paths throw that instead of reporting it as a document error.
    reporter.report('BP1010', { start: offset, end: offset + 1 }, `YAML syntax error: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'the frontmatter nests too deeply to be read; flatten it',
    });
    return undefined;
  }
  if (doc.errors.length > 0) {
    reportSyntaxErrors(doc.errors, offset, reporter);
    return undefined;
  }
  const converter = new Converter(offset, reporter, refuseLoneSurrogates);
  if (doc.contents === null) return new ScalarNode(offset, offset, null, 'plain', false, true);
  try {
    return converter.convert(doc.contents, undefined, 1);
  } catch (error) {
    if (error instanceof TooDeep) return undefined;
    // A safety net behind MAX_YAML_DEPTH: a caller deep in its own stack can still run out.
    if (!(error instanceof RangeError)) throw error;
    reporter.report('BP1010', { start: offset, end: offset + 1 }, `YAML syntax error: ${error.message}`, {
      hint: 'the frontmatter nests too deeply to be read; flatten it',
    });
    return undefined;
  }
}
