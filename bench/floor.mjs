// The floor: what any compiler of this package must do at least, in one fresh process —
// read every file sequentially, hash it, parse every frontmatter with yaml.parseDocument and
// every code module with acorn, serialize the result as sorted-key JSON and write it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseJs } from 'acorn';
import { parseDocument } from 'yaml';

const [dir, out] = process.argv.slice(2);
const files = [];
(function walk(d) {
  for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(d, e.name);
    if (e.isDirectory()) walk(full);
    else files.push(full);
  }
})(dir);
const result = {};
for (const file of files) {
  const bytes = readFileSync(file);
  const digest = createHash('sha256').update(bytes).digest('hex');
  const rel = path.relative(dir, file);
  const entry = { digest, size: bytes.length };
  if (file.endsWith('.md')) {
    const text = bytes.toString('utf8');
    const end = text.indexOf('\n---', 4);
    const doc = parseDocument(text.slice(4, end + 1), { version: '1.2', schema: 'core', uniqueKeys: true });
    entry.frontmatter = doc.toJS();
    const body = text.slice(text.indexOf('\n', end + 1) + 1);
    if (entry.frontmatter.language === 'javascript') parseJs(body, { ecmaVersion: 2023, sourceType: 'module' });
    entry.text = text;
  } else if (file.endsWith('.js')) {
    const text = bytes.toString('utf8');
    parseJs(text, { ecmaVersion: 2023, sourceType: 'module' });
    entry.text = text;
  }
  result[rel] = entry;
}
const sortKeys = (v) =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys(v[k])]),
        )
      : v;
const json = JSON.stringify(sortKeys(result));
writeFileSync(out, json);
const id = createHash('sha256').update(json).digest('hex');
if (process.env.BENCH_VERBOSE) console.log(files.length, id);
