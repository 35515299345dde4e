import type { CodeInfo } from './types.js';

const PACKAGE = 'a package: the name is looked up among its sources, imports and `requires`';

/** BP21xx: names and references (REF, TOOL-6, NEXT-5, MISC-1..3, MAN-3) and BP22xx: bodies (TPL). */
export const referenceCodes = {
  BP2101: {
    rule: 'REF-2',
    severity: 'error',
    title: 'A short name matches the final segment of several sources or imports',
    needs: 'two sources in different namespaces with the same final segment, named short from a third namespace',
  },
  BP2102: {
    rule: 'REF-4',
    severity: 'error',
    title: 'A `!ref` names no source or import',
    needs: PACKAGE,
  },
  BP2103: {
    rule: 'REF-4',
    severity: 'error',
    title: 'A `!ref` inside `{$literal: …}`, whose value is plain data',
    needs: 'the package-wide pass, which resolves `next.input` and `presentation.value`',
  },
  BP2104: {
    rule: 'REF-5',
    severity: 'error',
    title: 'A reference names a file, not a declared source name',
    needs: 'a package whose source file name differs from the name written',
  },
  BP2110: {
    rule: 'TOOL-6',
    severity: 'error',
    title: 'A tool names no routine, import or known external tool (without a catalog: not in `requires`)',
    needs: PACKAGE,
  },
  BP2111: {
    rule: 'TOOL-6',
    severity: 'error',
    title: 'A tool names something that cannot be called: instructions, or an import without a callable export',
    needs: 'a package with an instructions source or an import',
  },
  BP2115: {
    rule: 'NEXT-5',
    severity: 'error',
    title: 'A `next` target names no routine, import or known external tool',
    needs: PACKAGE,
  },
  BP2116: {
    rule: 'NEXT-5',
    severity: 'error',
    title: 'A `next` target cannot be called: instructions, or an import without a callable export',
    needs: 'a package with an instructions source or an import',
  },
  BP2120: {
    rule: 'MISC-1',
    severity: 'error',
    title: '`compaction.summary` names no routine or import',
    needs: PACKAGE,
  },
  BP2121: {
    rule: 'MISC-1',
    severity: 'error',
    title: '`compaction.summary` is not a plain generation routine (no tools, port, input, output or compaction)',
    needs: 'a package with the summary routine',
  },
  BP2125: {
    rule: 'MISC-2',
    severity: 'error',
    title: '`configure.routine` names no routine or import',
    needs: PACKAGE,
  },
  BP2126: {
    rule: 'MISC-2',
    severity: 'error',
    title: '`configure.routine` is not a callable routine',
    needs: 'a package with an instructions source or an import',
  },
  BP2127: {
    rule: 'MISC-3',
    severity: 'error',
    title: '`route.routine` names no routine or import',
    needs: PACKAGE,
  },
  BP2128: {
    rule: 'MISC-3',
    severity: 'error',
    title: '`route.routine` is not a callable routine',
    needs: 'a package with an instructions source or an import',
  },
  BP2130: {
    rule: 'MAN-3',
    severity: 'error',
    title: 'An agent `entry` names no local source',
    needs: 'a plugin.json and the package sources',
  },
  BP2131: {
    rule: 'MAN-3',
    severity: 'error',
    title: 'An agent `entry` is not a local model or code routine',
    needs: 'a plugin.json and the package sources',
  },
  BP2132: {
    rule: 'MAN-3',
    severity: 'error',
    title: 'An `exports` name names no local source',
    needs: 'a plugin.json and the package sources',
  },
  BP2133: {
    rule: 'MAN-3',
    severity: 'error',
    title: 'An `exports` name is an import alias, not a local source',
    needs: 'a plugin.json with `imports`',
  },
  BP2201: {
    rule: 'TPL-1',
    severity: 'error',
    title: 'An include `{{name}}` names no source or import',
    needs: PACKAGE,
  },
  BP2202: {
    rule: 'TPL-1',
    severity: 'error',
    title: 'An include `{{name}}` names a routine or import that is not instructions',
    needs: 'a package with the included source',
  },
  BP2203: {
    rule: 'TPL-1',
    severity: 'error',
    title: 'Instructions include themselves, directly or through others (an include cycle)',
    needs: 'instructions sources that include each other',
  },
  BP2204: {
    rule: 'TPL-1',
    severity: 'error',
    title: 'Double braces hold neither a source name, a `$` path nor `env.NAME`',
    needs: 'the package-wide pass over bodies',
  },
  BP2205: {
    rule: 'TPL-1',
    severity: 'error',
    title: 'Includes nested more than 128 levels deep',
    needs: 'a chain of more than 128 instructions sources, each including the next',
  },
  BP2210: {
    rule: 'TPL-2',
    severity: 'error',
    title: 'A dependency `[[name]]` names no source or import',
    needs: PACKAGE,
  },
  BP2211: {
    rule: 'TPL-2',
    severity: 'error',
    title: 'Double brackets hold no source name',
    needs: 'the package-wide pass over bodies',
  },
  BP2220: {
    rule: 'TPL-3',
    severity: 'error',
    title: 'A runtime template selects no root templates offer (`$.output`, an unknown root, or an incomplete `calls`/`session.state` path)',
    needs: 'the package-wide pass over bodies',
  },
  BP2221: {
    rule: 'TPL-3',
    severity: 'warning',
    title: 'A `$.input` template selects a value the input schema does not require, so it may be missing',
    needs: 'the model routine whose body (or included instructions) holds the template',
  },
  BP2222: {
    rule: 'TPL-3',
    severity: 'warning',
    title: 'Runtime templates in instructions that no model routine includes and the package does not export',
    needs: 'a package, to see which model routines include the instructions',
  },
  BP2230: {
    rule: 'TPL-5',
    severity: 'error',
    title: 'An opening `{{` or `[[` without its closing marker (escape it with a backslash to write it literally)',
    needs: 'the package-wide pass over bodies',
  },
  BP2240: {
    rule: 'TPL-6',
    severity: 'error',
    title: 'An `env.` placeholder whose name is not letters, digits and `_` (not starting with a digit)',
    needs: 'the package-wide pass over bodies',
  },
} as const satisfies Record<string, CodeInfo>;
