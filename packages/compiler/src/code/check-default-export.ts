import type { Identifier, Literal, Program } from 'acorn';
import type { Span } from '../diagnostics/reporter.js';
import { isFunction, type FunctionNode, type Node } from './ast.js';
import type { CodeReporter } from './code-reporter.js';
import type { ScopeAnalysis } from './scope.js';

const SHAPE = '`export default function (input, tools, context) { … }`';

/**
 * CODE-2 (routine bodies only): the default export is a plain or async function. Returns
 * that function, for CODE-7, or undefined when there is none to check.
 */
export function checkDefaultExport(program: Program, scopes: ScopeAnalysis, cr: CodeReporter): FunctionNode | undefined {
  for (const stmt of program.body) {
    if (stmt.type === 'ExportDefaultDeclaration') return checkValue(stmt.declaration, cr.head(stmt), scopes, cr);
    if (stmt.type === 'ExportAllDeclaration' && stmt.exported && nameOf(stmt.exported) === 'default') {
      cr.report('BP3013', cr.head(stmt), 'Unexpected module namespace object as the default export, expected a function', { hint: `write ${SHAPE}` });
      return undefined;
    }
    if (stmt.type !== 'ExportNamedDeclaration') continue;
    for (const spec of stmt.specifiers) {
      if (nameOf(spec.exported) !== 'default') continue;
      if (stmt.source) {
        // Whether another module's export is a function is only known by evaluating it; refuse rather than guess.
        const from = String(stmt.source.value);
        cr.report('BP3014', spec, `Unexpected default export re-exported from \`${from}\`, expected a function defined in the body`, {
          hint: `import it and wrap it: \`import run from '${from}'; export default (input, tools, context) => run(input, tools, context);\``,
        });
        return undefined;
      }
      if (spec.local.type === 'Identifier') return checkValue(spec.local, spec, scopes, cr);
    }
  }
  const named = program.body.find((s) => s.type === 'ExportNamedDeclaration' && s.declaration?.type === 'FunctionDeclaration');
  const firstLine = cr.code.indexOf('\n');
  cr.report('BP3010', { start: 0, end: firstLine === -1 ? cr.code.length : firstLine }, `Unexpected body without a default export, expected ${SHAPE}`, {
    hint: cr.code.trimStart().startsWith('```')
      ? // A fenced body parses as tagged template literals, so the fence surfaces here, not as a syntax error.
        'the body is raw JavaScript: remove the Markdown code fence'
      : named?.type === 'ExportNamedDeclaration' && named.declaration?.type === 'FunctionDeclaration'
        ? `export \`${named.declaration.id.name}\` as the default: \`export default function ${named.declaration.id.name}(…)\``
        : 'the runtime calls the default-exported function with the input, the tools and a context',
  });
  return undefined;
}

function checkValue(value: Node, at: Span, scopes: ScopeAnalysis, cr: CodeReporter): FunctionNode | undefined {
  if (isFunction(value)) {
    if (!value.generator) return value;
    cr.report('BP3012', at, `Unexpected ${value.async ? 'async ' : ''}generator function as the default export, expected a plain or async function`, {
      hint: 'remove the `*`: the routine returns its output, it does not yield values',
    });
    return undefined;
  }
  if (value.type === 'ClassDeclaration' || value.type === 'ClassExpression') {
    cr.report('BP3011', at, 'Unexpected class as the default export, expected a function', { hint: `write ${SHAPE}` });
    return undefined;
  }
  if (value.type === 'Identifier') return checkBinding(value, at, scopes, cr);
  cr.report('BP3013', at, `Unexpected ${describe(value)} as the default export, expected a function`, { hint: `write ${SHAPE}` });
  return undefined;
}

/** `export default f` and `export { f as default }`: `f` must be a function declaration or a `const` bound to a function. */
function checkBinding(id: Identifier, at: Span, scopes: ScopeAnalysis, cr: CodeReporter): FunctionNode | undefined {
  const binding = scopes.module.bindings.get(id.name);
  if (!binding) {
    cr.report('BP3013', at, `Unexpected \`${id.name}\` as the default export, expected a function declared in the body`, { hint: `write ${SHAPE}` });
    return undefined;
  }
  const related = [cr.locate(binding.id, `\`${id.name}\` is declared here`)];
  const decl = binding.declaration;
  if (binding.kind === 'import') {
    cr.report('BP3014', at, `Unexpected default export of the imported \`${id.name}\`, expected a function defined in the body`, {
      hint: `wrap it: \`export default (input, tools, context) => ${id.name}(input, tools, context);\``,
      related,
    });
    return undefined;
  }
  if (binding.kind === 'function' && isFunction(decl)) return checkValue(decl, at, scopes, cr);
  if (binding.kind === 'class') return checkValue(decl, at, scopes, cr);
  if (decl.type === 'VariableDeclarator' && decl.id === binding.id && decl.init) {
    const init = decl.init;
    if (binding.kind === 'const') {
      if (isFunction(init) || init.type === 'ClassExpression') return checkValue(init, at, scopes, cr);
    } else if (isFunction(init)) {
      cr.report('BP3013', at, `Unexpected \`${binding.kind} ${id.name}\` as the default export, expected a function declaration or a \`const\``, {
        hint: `declare it with \`const ${id.name} = …\` so it cannot be reassigned before the routine runs`,
        related,
      });
      return undefined;
    }
    cr.report('BP3013', at, `Unexpected \`${id.name}\`, bound to ${describe(init)}, as the default export, expected a function`, {
      hint: `write ${SHAPE}`,
      related,
    });
    return undefined;
  }
  cr.report('BP3013', at, `Unexpected \`${id.name}\` as the default export, expected a function declaration or a \`const\` bound to a function`, {
    hint: `write ${SHAPE}`,
    related,
  });
  return undefined;
}

function nameOf(node: Identifier | Literal): string {
  return node.type === 'Identifier' ? node.name : String(node.value);
}

function describe(node: Node): string {
  switch (node.type) {
    case 'ObjectExpression':
      return 'an object';
    case 'ArrayExpression':
      return 'an array';
    case 'Literal':
      return node.value === null ? 'null' : node.regex ? 'a regular expression' : `a ${typeof node.value}`;
    case 'TemplateLiteral':
      return 'a string';
    case 'CallExpression':
    case 'NewExpression':
      return 'the result of a call';
    case 'Identifier':
      return `\`${node.name}\``;
    default:
      return 'an expression';
  }
}
