import type { CodeInfo } from './types.js';

/** BP10xx: the source file (SRC), BP11xx: names and kinds (NAME, KIND). */
export const sourceCodes = {
  BP1001: {
    rule: 'SRC-1',
    severity: 'error',
    title: 'Frontmatter is not closed by a `---` line',
    example: '---\nname: notes.style\ndescription: House style.\n',
  },
  BP1002: {
    rule: 'SRC-1',
    severity: 'error',
    title: 'A routine imported directly does not start with a `---` line',
    needs: 'a `.md` file without frontmatter imported directly as a routine (a bundler import or `checkSource(…, {requireSource: true})`)',
  },
  BP1003: {
    rule: 'SRC-1',
    severity: 'info',
    title: 'A Markdown file without frontmatter is documentation and was skipped',
    needs: 'a `.md` file without frontmatter found by discovery, e.g. a README',
  },
  BP1004: { rule: 'SRC-1', severity: 'error', title: 'The file is not valid UTF-8', needs: 'bytes that are not UTF-8' },
  BP1005: { rule: 'SRC-1', severity: 'error', title: 'The frontmatter is not a mapping', example: '---\n- name\n- description\n---\nText.\n' },
  BP1010: { rule: 'SRC-2', severity: 'error', title: 'YAML syntax error', example: '---\nname: notes.style\ndescription: [House style\n---\nText.\n' },
  BP1011: {
    rule: 'SRC-2',
    severity: 'error',
    title: 'Duplicate key',
    example: '---\nname: notes.style\ndescription: House style.\nname: notes.other\n---\nText.\n',
  },
  BP1012: {
    rule: 'SRC-2',
    severity: 'error',
    title: 'Anchors and aliases are not allowed',
    example: '---\nname: &n notes.style\ndescription: *n\n---\nText.\n',
  },
  BP1013: {
    rule: 'SRC-2',
    severity: 'error',
    title: 'Merge keys (`<<`) are not allowed',
    example: '---\nname: notes.answer\ndescription: Answers.\nmodel:\n  <<:\n    select:\n      operation: generation\n---\nAnswer.\n',
  },
  BP1014: {
    rule: 'SRC-2',
    severity: 'error',
    title: 'Tags other than `!ref` are not allowed',
    example: '---\nname: notes.style\ndescription: !!str House style.\n---\nText.\n',
  },
  BP1015: {
    rule: 'SRC-2',
    severity: 'error',
    title: 'A key must be a string; quote it',
    example:
      '---\nname: notes.answer\ndescription: Answers.\nmodel:\n  select:\n    operation: generation\noutput:\n  type: object\n  properties:\n    1:\n      type: string\n---\nAnswer.\n',
  },
  BP1016: {
    rule: 'SRC-2',
    severity: 'error',
    title: 'A value that JSON cannot hold (`.inf`, `.nan`)',
    example:
      '---\nname: notes.answer\ndescription: Answers.\nmodel:\n  select:\n    operation: generation\noutput:\n  type: number\n  maximum: .inf\n---\nAnswer.\n',
  },
  BP1017: {
    rule: 'SRC-2',
    severity: 'error',
    title: 'A key indented to no mapping around it',
    example: '---\nname: notes.count\ndescription: Counts.\nlanguage: javascript\noutput:\n  type: object\n     minimum: 0\n---\nexport default () => ({});\n',
  },
  BP1018: {
    rule: 'SRC-2',
    severity: 'error',
    title: 'A quoted value without its closing quote',
    example: '---\nname: notes.style\ndescription: "House style.\n---\nText.\n',
  },
  BP1020: {
    rule: 'SRC-3',
    severity: 'error',
    title: 'Unknown field',
    example: '---\nname: notes.answer\ndescription: Answers.\nmodel:\n  select:\n    operation: generation\nmax_output_tokens: 2000\n---\nAnswer.\n',
  },
  BP1030: {
    rule: 'SRC-4',
    severity: 'error',
    title: 'A null value where a list or mapping is required',
    example: '---\nname: notes.answer\ndescription: Answers.\nmodel:\n  select:\n    operation: generation\ntools:\n---\nAnswer.\n',
  },
  BP1040: {
    rule: 'SRC-5',
    severity: 'warning',
    title: 'Indentation other than two spaces',
    example: '---\nname: notes.answer\ndescription: Answers.\nmodel:\n    select:\n        operation: generation\n---\nAnswer.\n',
  },
  BP1041: {
    rule: 'SRC-5',
    severity: 'warning',
    title: 'A non-empty flow collection; write it expanded',
    example: '---\nname: notes.answer\ndescription: Answers.\nmodel:\n  select: {operation: generation}\n---\nAnswer.\n',
  },
  BP1050: {
    rule: 'SRC-6',
    severity: 'error',
    title: 'An unquoted value containing `: `',
    example: '---\nname: notes.style\ndescription: Note: keep it short\n---\nText.\n',
  },
  BP1060: {
    rule: 'SRC-7',
    severity: 'error',
    title: '`name` or `description` missing or not a nonempty string',
    example: '---\nname: notes.style\n---\nText.\n',
  },
  BP1070: {
    rule: 'SRC-8',
    severity: 'error',
    title: '`title` is empty, not a string or longer than 256 characters',
    example: "---\nname: notes.style\ntitle: ''\ndescription: House style.\n---\nText.\n",
  },
  BP1090: { rule: 'SRC-9', severity: 'error', title: 'Two sources declare the same name', needs: 'two sources in one package' },
  BP1091: {
    rule: 'SRC-9',
    severity: 'warning',
    title: 'The file name does not match the final segment of the name',
    needs: 'a file whose name differs from the final name segment, checked as part of a directory or package',
  },
  BP1100: { rule: 'NAME-1', severity: 'error', title: 'Invalid name', example: '---\nname: notes..style\ndescription: House style.\n---\nText.\n' },
  BP1101: {
    rule: 'NAME-2',
    severity: 'error',
    title: 'Names beginning `env.` are reserved',
    example: '---\nname: env.style\ndescription: House style.\n---\nText.\n',
  },
  BP1110: {
    rule: 'KIND-1',
    severity: 'error',
    title: 'Both `model` and `language`: a source has exactly one kind',
    example:
      '---\nname: notes.answer\ndescription: Answers.\nlanguage: javascript\nmodel:\n  select:\n    operation: generation\n---\nexport default () => 1;\n',
  },
  BP1111: {
    rule: 'KIND-2',
    severity: 'error',
    title: 'A field instructions do not accept',
    example: '---\nname: notes.style\ndescription: House style.\ninput: {}\n---\nText.\n',
  },
  BP1112: {
    rule: 'KIND-3',
    severity: 'error',
    title: 'A field model routines do not accept',
    example: '---\nname: notes.answer\ndescription: Answers.\ncatalog: true\nmodel:\n  select:\n    operation: generation\n---\nAnswer.\n',
  },
  BP1113: {
    rule: 'KIND-4',
    severity: 'error',
    title: 'A field code routines do not accept',
    example:
      '---\nname: notes.count\ndescription: Counts.\nlanguage: javascript\ncompaction:\n  max_tokens: 100\n  keep_turns: 1\n---\nexport default (input) => input;\n',
  },
  BP1115: {
    rule: 'KIND-5',
    severity: 'error',
    title: 'The body of instructions or a model routine is empty',
    example: '---\nname: notes.style\ndescription: House style.\n---\n\n',
  },
  BP1116: {
    rule: 'KIND-6',
    severity: 'error',
    title: '`language` must be `javascript`',
    example: '---\nname: notes.count\ndescription: Counts.\nlanguage: typescript\n---\nexport default (input) => input;\n',
  },
  BP1117: {
    rule: 'KIND-7',
    severity: 'error',
    title: '`visibility` must be `public` or `private`',
    example: '---\nname: notes.count\ndescription: Counts.\nvisibility: internal\nlanguage: javascript\n---\nexport default (input) => input;\n',
  },
  BP1118: {
    rule: 'KIND-8',
    severity: 'error',
    title: '`catalog` must be a boolean',
    example: "---\nname: notes.count\ndescription: Counts.\ncatalog: 'yes'\nlanguage: javascript\n---\nexport default (input) => input;\n",
  },
} as const satisfies Record<string, CodeInfo>;
