// The package's JavaScript as plain .js files, for the plain esbuild and Rollup references: every
// code routine's body becomes routines/<ns>/<name>.js beside a copy of the lib modules (so its
// `../lib/mK.js` imports resolve the same way), and entry.js imports all of them as namespaces
// and exports them in one array, so tree-shaking cannot drop any.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function writeJsMirror(pkgDir, outDir) {
  const routines = path.join(pkgDir, 'routines');
  const modules = [];
  for (const ns of readdirSync(routines).sort()) {
    for (const file of readdirSync(path.join(routines, ns)).sort()) {
      const text = readFileSync(path.join(routines, ns, file), 'utf8');
      let rel;
      if (file.endsWith('.js')) {
        rel = `routines/${ns}/${file}`;
        write(outDir, rel, text);
        continue;
      }
      if (!file.endsWith('.md') || !/\nlanguage: javascript\n/.test(text.slice(0, text.indexOf('\n---', 4) + 1))) continue;
      const end = text.indexOf('\n---', 4);
      const body = text.slice(text.indexOf('\n', end + 1) + 1);
      rel = `routines/${ns}/${file.replace(/\.md$/, '.js')}`;
      write(outDir, rel, body);
      modules.push(rel);
    }
  }
  const entry = modules.map((m, i) => `import * as m${i} from './${m}';`).join('\n') + `\nexport default [${modules.map((_, i) => `m${i}`).join(', ')}];\n`;
  write(outDir, 'entry.js', entry);
  return { entry: path.join(outDir, 'entry.js'), modules: modules.length };
}

function write(dir, rel, text) {
  const full = path.join(dir, rel);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
}
