import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDirectory } from '../src/check-directory.js';
import { finalSegment, namespaceOf } from '../src/routine/names.js';
import { checkSource } from '../src/routine/check-routine.js';
import { CODE_BODY, HEAD, check, diagnose, summary } from '../../../test/support/diagnose.js';
import { tempDir } from '../../../test/support/temp.js';

const enc = (s: string) => new TextEncoder().encode(s);

describe('SRC-1 source files', () => {
  it('refuses unclosed frontmatter at the opening fence', () => {
    const r = checkSource('/p/a.md', '---\nname: a\ndescription: d\n');
    expect(summary(r.diagnostics)).toEqual(['BP1001 SRC-1 1:1']);
    expect(r.status).toBe('invalid');
  });
  it('accepts a closed frontmatter and reads the body after it', () => {
    const r = checkSource('/p/a.md', '---\nname: a\ndescription: d\n---\nBody text.\n');
    expect(r.diagnostics).toEqual([]);
    expect(r.routine?.body).toBe('Body text.\n');
    expect(r.routine?.bodyStart).toBe(31);
  });
  it('skips documentation, but refuses it when imported as a routine', () => {
    expect(summary(checkSource('/p/README.md', '# Readme\n').diagnostics)).toEqual(['BP1003 SRC-1 1:1']);
    expect(checkSource('/p/README.md', '# Readme\n').status).toBe('documentation');
    const direct = checkSource('/p/README.md', '# Readme\n', { requireSource: true });
    expect(summary(direct.diagnostics)).toEqual(['BP1002 SRC-1 1:1']);
    expect(direct.status).toBe('invalid');
  });
  it('drops a BOM and turns CRLF and CR into LF before anything else', () => {
    const lf = checkSource('/p/a.md', '---\nname: a\ndescription: Note: x\n---\nB\n');
    const crlf = checkSource('/p/a.md', enc('\uFEFF---\r\nname: a\r\ndescription: Note: x\r\n---\rB\r\n'));
    expect(summary(crlf.diagnostics)).toEqual(summary(lf.diagnostics));
    expect(summary(crlf.diagnostics)).toEqual(['BP1050 SRC-6 3:14']);
    const ok = checkSource('/p/a.md', enc('\uFEFF---\r\nname: a\r\ndescription: d\r\n---\r\nBody\r\n'));
    expect(ok.diagnostics).toEqual([]);
    expect(ok.routine?.text).toBe('---\nname: a\ndescription: d\n---\nBody\n');
  });
  it('refuses invalid UTF-8 with the position of the bad byte', () => {
    const bytes = new Uint8Array([...enc('---\nname: a\ndescription: d'), 0xff, ...enc('\n---\nB\n')]);
    const r = checkSource('/p/a.md', bytes);
    expect(summary(r.diagnostics)).toEqual(['BP1004 SRC-1 3:15']);
    expect(r.diagnostics[0]!.message).toContain('byte 26');
  });
  it('points at an encoded surrogate or an overlong form, not at the end of the file', () => {
    // ED A0 80 is U+D800 encoded as UTF-8: well-formed in shape, refused by a strict decoder.
    const surrogate = checkSource('/p/a.md', new Uint8Array([...enc('ab\n'), 0xed, 0xa0, 0x80, ...enc('cd\n')]));
    expect(surrogate.diagnostics).toEqual([
      expect.objectContaining({ code: 'BP1004', line: 2, column: 1, message: 'Unexpected invalid UTF-8 at byte 3, expected UTF-8 text' }),
    ]);
    // E0 80 80 is an overlong NUL.
    const overlong = checkSource('/p/a.md', new Uint8Array([...enc('abc'), 0xe0, 0x80, 0x80, ...enc('\n')]));
    expect(overlong.diagnostics).toEqual([
      expect.objectContaining({ code: 'BP1004', line: 1, column: 4, message: 'Unexpected invalid UTF-8 at byte 3, expected UTF-8 text' }),
    ]);
  });
  it('refuses frontmatter that is not a mapping', () => {
    expect(summary(checkSource('/p/a.md', '---\n- a\n---\nB\n').diagnostics)).toEqual(['BP1005 SRC-1 2:1']);
  });
});

describe('SRC-2 strict YAML', () => {
  it('refuses a syntax error with its position', () => {
    expect(summary(diagnose('name: a\ndescription: [x\n'))).toEqual(['BP1010 SRC-2 4:1']);
  });
  it('refuses duplicate keys at any depth, pointing at the first', () => {
    const d = diagnose(HEAD.model + 'output:\n  type: object\n  type: object\n');
    expect(summary(d)).toEqual(['BP1011 SRC-2 9:3']);
    expect(d[0]!.related).toEqual([{ file: '/pkg/routine.md', line: 8, column: 3, message: 'first `type` is here' }]);
    expect(diagnose(HEAD.model + 'output:\n  type: object\n')).toEqual([]);
  });
  it('refuses anchors, aliases, merge keys and tags other than !ref', () => {
    expect(summary(diagnose('name: &n a\ndescription: *n\n'))).toEqual(['BP1012 SRC-2 2:7', 'BP1012 SRC-2 3:14', 'BP1060 SRC-7 3:14']);
    expect(summary(diagnose(HEAD.model + '  <<:\n    interaction: request\n'))).toEqual(expect.arrayContaining(['BP1013 SRC-2 7:3']));
    expect(summary(diagnose('name: a\ndescription: !!str d\n'))).toEqual(['BP1014 SRC-2 3:14']);
    expect(summary(diagnose('name: a\ndescription: !ref d\n'))).toContain('BP1060 SRC-7 3:14');
  });
  it('refuses non-string keys with the hint to quote them, accepts quoted ones', () => {
    const d = diagnose(HEAD.model + 'output:\n  type: object\n  properties:\n    true:\n      type: boolean\n');
    expect(summary(d)).toEqual(['BP1015 SRC-2 10:5']);
    expect(d[0]!.hint).toBe("quote the key: `'true':`");
    expect(diagnose(HEAD.model + "output:\n  type: object\n  properties:\n    'true':\n      type: boolean\n")).toEqual([]);
  });
  it('refuses values JSON cannot hold', () => {
    expect(summary(diagnose(HEAD.model + 'output:\n  type: number\n  maximum: .inf\n'))).toEqual(['BP1016 SRC-2 9:12']);
  });
});

describe('SRC-3 unknown fields', () => {
  it('names the field and where it belongs', () => {
    const d = diagnose(HEAD.model + 'max_output_tokens: 100\nproperties: {}\ndescriptoin: x\n');
    expect(summary(d)).toEqual(['BP1020 SRC-3 7:1', 'BP1020 SRC-3 8:1', 'BP1020 SRC-3 9:1']);
    expect(d.map((x) => x.hint)).toEqual([
      '`max_output_tokens` belongs inside `model`',
      '`properties` belongs inside `input` or `output`',
      'did you mean `description`?',
    ]);
  });
});

describe('SRC-4 null is data, not an empty declaration', () => {
  it('refuses `tools:` with nothing after it and accepts `tools: []`', () => {
    const d = diagnose(HEAD.model + 'tools:\n');
    expect(summary(d)).toEqual(['BP1030 SRC-4 7:7']);
    expect(d[0]!.hint).toContain('`[]`');
    expect(diagnose(HEAD.model + 'tools: []\n')).toEqual([]);
  });
});

describe('SRC-5 style', () => {
  it('warns on four-space indentation and on non-empty flow collections', () => {
    const d = diagnose('name: a\ndescription: d\ntools:\n    - x\n');
    expect(summary(d)).toEqual(['BP1040 SRC-5 5:1']);
    expect(d[0]!.severity).toBe('warning');
    expect(summary(diagnose(HEAD.model + 'input: {type: string}\n'))).toEqual(['BP1041 SRC-5 7:8']);
    expect(diagnose('name: a\ndescription: d\ntools:\n  - x\n')).toEqual([]);
    expect(diagnose(HEAD.model + 'input: {}\ntools: []\n')).toEqual([]);
  });
});

describe('SRC-6 the colon-space trap', () => {
  it('reports an invalid line with the quoting hint', () => {
    const d = diagnose('name: a\ndescription: Note: be brief\n');
    expect(summary(d)).toEqual(['BP1050 SRC-6 3:14']);
    expect(d[0]!.hint).toContain('quote the whole value');
  });
  it('reports a mapping where a string is required', () => {
    expect(summary(diagnose('name: a\ndescription:\n  Note: x\n'))).toEqual(['BP1050 SRC-6 4:3']);
  });
  it('accepts the quoted value and a block scalar', () => {
    expect(diagnose('name: a\ndescription: "Note: be brief"\n')).toEqual([]);
    expect(diagnose('name: a\ndescription: |\n  Note: be brief\n')).toEqual([]);
  });
});

describe("SRC-2 indentation and quotes: the root cause, not the parser's words", () => {
  it('a key indented under a `key: value` line is an indentation error, not the colon-space trap', () => {
    const d = diagnose('name: a\ndescription: d\nlanguage: javascript\noutput:\n  type: object\n     minimum: 0\n');
    expect(summary(d)).toEqual(['BP1017 SRC-2 7:1']);
    expect(d[0]!.message).toBe('Unexpected indentation of 5 spaces before `minimum`, expected 2 (beside `type`)');
    expect(d[0]!.endColumn).toBe(6);
  });
  it('a key indented between two mappings names both columns that fit', () => {
    const d = diagnose('name: a\ndescription: d\noutput:\n  type: object\n  properties:\n    words:\n      description: n\n     type: integer\n');
    expect(summary(d)).toEqual(['BP1017 SRC-2 9:1']);
    expect(d[0]!.message).toBe('Unexpected indentation of 5 spaces before `type`, expected 6 (beside `description`) or 4 (beside `words`)');
  });
  it('a missing closing quote is reported at the opening quote, not at the closing `---`', () => {
    const d = diagnose('name: a\ndescription: "Counts the words.\nlanguage: javascript\n');
    expect(summary(d)).toEqual(['BP1018 SRC-2 3:14']);
    expect(d[0]!.hint).toContain('close the quote');
    expect(summary(diagnose("name: a\ndescription: 'it''s open\n"))).toEqual(['BP1018 SRC-2 3:14']);
  });
});

describe('SRC-7 name and description', () => {
  it('refuses a missing name or description at the closing fence', () => {
    expect(summary(diagnose('description: d\n'))).toEqual(['BP1060 SRC-7 3:1']);
    expect(summary(diagnose('name: a\n'))).toEqual(['BP1060 SRC-7 3:1']);
  });
  it('refuses empty or non-string values', () => {
    expect(summary(diagnose("name: a\ndescription: ''\n"))).toEqual(['BP1060 SRC-7 3:14']);
    expect(summary(diagnose('name: 12\ndescription: d\n'))).toEqual(['BP1060 SRC-7 2:7']);
    expect(diagnose("name: '12'\ndescription: d\n")).toEqual([]);
  });
});

describe('SRC-8 title', () => {
  it('accepts 256 characters and refuses 257 or an empty title', () => {
    expect(diagnose(`name: a\ntitle: ${'é'.repeat(256)}\ndescription: d\n`)).toEqual([]);
    expect(summary(diagnose(`name: a\ntitle: ${'é'.repeat(257)}\ndescription: d\n`))).toEqual(['BP1070 SRC-8 3:8']);
    expect(summary(diagnose("name: a\ntitle: ''\ndescription: d\n"))).toEqual(['BP1070 SRC-8 3:8']);
  });
});

describe('SRC-10 positions', () => {
  it('gives 1-based lines and UTF-16 columns of the offending node, with an exclusive end', () => {
    const [d] = diagnose('name: a\ndescription: "😀 ok"\nvisibilty: hidden\n');
    expect(d).toMatchObject({ code: 'BP1020', line: 4, column: 1, endLine: 4, endColumn: 10, file: '/pkg/routine.md' });
    const [e] = check(HEAD.code + 'visibility: 😀x\n', CODE_BODY).diagnostics;
    expect(e).toMatchObject({ code: 'BP1117', line: 5, column: 13, endLine: 5, endColumn: 16 });
  });
});

describe('NAME-1 and NAME-2 names', () => {
  it('accepts 128 characters and refuses 129', () => {
    expect(diagnose(`name: ${'a'.repeat(128)}\ndescription: d\n`)).toEqual([]);
    expect(summary(diagnose(`name: ${'a'.repeat(129)}\ndescription: d\n`))).toEqual(['BP1100 NAME-1 2:7']);
  });
  it('refuses empty segments and characters outside the set', () => {
    for (const bad of ['a..b', '.a', 'a.', 'a b', 'café', 'a/b']) {
      expect(summary(diagnose(`name: '${bad}'\ndescription: d\n`)), bad).toEqual(['BP1100 NAME-1 2:7']);
    }
    expect(diagnose('name: patterns.react-v2_x\ndescription: d\n')).toEqual([]);
  });
  it('reserves env.', () => {
    expect(summary(diagnose('name: env.home\ndescription: d\n'))).toEqual(['BP1101 NAME-2 2:7']);
    expect(diagnose('name: environment.home\ndescription: d\n')).toEqual([]);
  });
});

describe('KIND-1..8 kinds and inventories', () => {
  it('KIND-1 refuses model and language together', () => {
    const d = diagnose(HEAD.model + 'language: javascript\n', CODE_BODY);
    expect(summary(d)).toEqual(['BP1110 KIND-1 7:1']);
    expect(d[0]!.related?.[0]).toMatchObject({ line: 4, column: 1 });
  });
  it('KIND-1 classifies by model, then language, else instructions', () => {
    expect(check(HEAD.model).routine?.kind).toBe('model');
    expect(check(HEAD.code, CODE_BODY).routine?.kind).toBe('code');
    expect(check(HEAD.instructions).routine?.kind).toBe('instructions');
  });
  it('KIND-2 instructions accept name, title, description, tools only', () => {
    const d = diagnose(HEAD.instructions + 'input: {}\nnext: other\n');
    expect(summary(d)).toEqual(['BP1111 KIND-2 4:1', 'BP1111 KIND-2 5:1']);
    expect(d[0]!.hint).toContain('not callable');
    expect(diagnose(HEAD.instructions + 'title: Style\ntools: []\n')).toEqual([]);
  });
  it('KIND-3 model routines refuse code fields', () => {
    expect(summary(diagnose(HEAD.model + 'catalog: true\n'))).toEqual(['BP1112 KIND-3 7:1']);
    expect(diagnose(HEAD.model + 'visibility: public\ninput: {}\n')).toEqual([]);
  });
  it('KIND-4 code routines refuse model fields', () => {
    expect(summary(diagnose(HEAD.code + 'route:\n  routine: x\n', CODE_BODY))).toEqual(['BP1113 KIND-4 5:1']);
    expect(diagnose(HEAD.code + 'catalog: true\n', CODE_BODY)).toEqual([]);
  });
  it('KIND-5 instructions and model bodies are nonempty', () => {
    expect(summary(diagnose(HEAD.instructions, '  \n\n'))).toEqual(['BP1115 KIND-5 4:1']);
    expect(summary(diagnose(HEAD.model, ''))).toEqual(['BP1115 KIND-5 7:1']);
    expect(diagnose(HEAD.model, 'x')).toEqual([]);
  });
  it('KIND-6 language is javascript', () => {
    const d = diagnose('name: a\ndescription: d\nlanguage: JavaScript\n', CODE_BODY);
    expect(summary(d)).toEqual(['BP1116 KIND-6 4:11']);
    expect(d[0]!.hint).toBe('write `language: javascript`');
  });
  it('KIND-7 visibility is public or private', () => {
    expect(summary(diagnose(HEAD.code + 'visibility: internal\n', CODE_BODY))).toEqual(['BP1117 KIND-7 5:13']);
    expect(diagnose(HEAD.code + 'visibility: private\n', CODE_BODY)).toEqual([]);
  });
  it('KIND-8 catalog is a boolean', () => {
    expect(summary(diagnose(HEAD.code + "catalog: 'true'\n", CODE_BODY))).toEqual(['BP1118 KIND-8 5:10']);
    expect(diagnose(HEAD.code + 'catalog: false\n', CODE_BODY)).toEqual([]);
  });
});

describe('SRC-9 names across a directory', () => {
  const dir = tempDir('berrypack-src9-');
  mkdirSync(path.join(dir, 'a'));
  mkdirSync(path.join(dir, 'b'));
  writeFileSync(path.join(dir, 'a/compose.md'), '---\nname: notes.compose\ndescription: d\n---\nOne.\n');
  writeFileSync(path.join(dir, 'b/compose.md'), '---\nname: notes.compose\ndescription: d\n---\nTwo.\n');
  writeFileSync(path.join(dir, 'b/react.md'), '---\nname: patterns.react\ndescription: d\n---\nThree.\n');
  writeFileSync(path.join(dir, 'b/vue.md'), '---\nname: patterns.svelte\ndescription: d\n---\nFour.\n');
  it('refuses a second source with the same name, pointing at the first', () => {
    const { diagnostics } = checkDirectory(dir);
    const duplicate = diagnostics.filter((d) => d.code === 'BP1090');
    expect(summary(duplicate)).toEqual(['BP1090 SRC-9 2:7']);
    expect(duplicate[0]!.file).toBe(path.join(dir, 'b/compose.md'));
    expect(duplicate[0]!.related).toEqual([{ file: path.join(dir, 'a/compose.md'), line: 2, column: 7, message: '`notes.compose` is first declared here' }]);
  });
  it('warns when the file name differs from the final segment, and directories never assign names', () => {
    const { diagnostics, routines } = checkDirectory(dir);
    expect(diagnostics.filter((d) => d.code === 'BP1091').map((d) => path.basename(d.file))).toEqual(['vue.md']);
    expect(routines.map((r) => r.name)).toEqual(['notes.compose', 'notes.compose', 'patterns.react', 'patterns.svelte']);
  });
});

describe('NAME-3 namespaces', () => {
  it('is everything before the last dot; no dot is the root namespace', () => {
    expect(namespaceOf('patterns.react')).toBe('patterns');
    expect(namespaceOf('a.b.c')).toBe('a.b');
    expect(namespaceOf('converse')).toBe('');
    expect(finalSegment('a.b.c')).toBe('c');
  });
});
