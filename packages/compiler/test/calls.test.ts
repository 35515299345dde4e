import { it } from 'vitest';
import { check } from '../../../test/support/diagnose.js';
it('x', () => {
  const r = check("name: a\ndescription: d\nx:\n  a: $.a[*]   # c\n  b: '$[''a'']'  \n  c: \"$.a\"\n  d: !ref  foo\n  e: |\n    $.x\n  f:\n  g: 'a\n    b'\n");
  const show = (n: any, ind = '') : void => { if (n.kind === 'map') for (const e of n.entries) { console.log(ind + e.key, JSON.stringify(r.routine!.text.slice(e.value.span.start, e.value.span.end)), JSON.stringify(e.value.value), e.value.style, e.value.empty); show(e.value, ind + '  '); } };
  show(r.routine!.frontmatter);
});
