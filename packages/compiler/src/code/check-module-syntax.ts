import type { CodeReporter } from './code-reporter.js';
import type { ScopeAnalysis } from './scope.js';

/** CODE-3: no top-level await (nor `for await`), no dynamic `import()`, no `import.meta`. */
export function checkModuleSyntax(scopes: ScopeAnalysis, cr: CodeReporter, role: 'body' | 'module'): void {
  for (const { node, insideFunction } of scopes.syntax) {
    if (node.type === 'AwaitExpression' && !insideFunction) {
      cr.report(
        'BP3020',
        { start: node.start, end: node.start + 'await'.length },
        `Unexpected top-level \`await\`, expected \`await\` only inside ${role === 'body' ? 'the default-exported function' : 'functions'}`,
        {
          hint: 'move the work into the function: modules are loaded before the routine runs and must not wait',
        },
      );
    } else if (node.type === 'ForOfStatement' && node.await && !insideFunction) {
      cr.report('BP3020', cr.head(node), 'Unexpected top-level `for await`, expected `for await` only inside functions', {
        hint: 'move the loop into the function: modules are loaded before the routine runs and must not wait',
      });
    } else if (node.type === 'ImportExpression') {
      cr.report('BP3021', cr.head(node), 'Unexpected dynamic `import()`, expected a static `import … from` at the top of the module', {
        hint: 'only static imports are captured into the package; import the module statically',
      });
    } else if (node.type === 'MetaProperty' && node.meta.name === 'import') {
      cr.report('BP3022', node, 'Unexpected `import.meta`, expected code that does not depend on where its module is stored', {
        hint: 'a captured module has no URL or file at run time; pass what you need in the input',
      });
    }
  }
}
