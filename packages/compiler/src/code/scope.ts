import type { AwaitExpression, ForOfStatement, Identifier, ImportExpression, MetaProperty, Program } from 'acorn';
import { childNodes, type FunctionNode, type Node } from './ast.js';

export type BindingKind = 'var' | 'let' | 'const' | 'using' | 'function' | 'class' | 'param' | 'catch' | 'import';

export interface Binding {
  name: string;
  kind: BindingKind;
  /** The identifier that declares it. */
  id: Identifier;
  /**
   * What declares it: the VariableDeclarator, the FunctionDeclaration or named
   * FunctionExpression, the class, the function of a parameter, the CatchClause or the
   * import specifier.
   */
  declaration: Node;
}

export class Scope {
  readonly bindings = new Map<string, Binding>();

  constructor(
    readonly parent: Scope | undefined,
    /** Functions, static blocks and the module: where `var` declarations land. */
    readonly isVarScope: boolean,
  ) {}

  lookup(name: string): Binding | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const b = s.bindings.get(name);
      if (b) return b;
    }
    return undefined;
  }

  varScope(): Scope {
    let s: Scope = this;
    while (!s.isVarScope && s.parent) s = s.parent;
    return s;
  }
}

export interface Reference {
  id: Identifier;
  /** Undefined when free: a global of the host or the language. */
  binding: Binding | undefined;
}

export interface ScopeAnalysis {
  module: Scope;
  /** Every identifier that reads or writes a variable, in source order. */
  references: Reference[];
  /** Declaring identifiers to their bindings (a function's parameters, a `const`…). */
  declarations: Map<Identifier, Binding>;
  /** Each node's parent, for looking at the expression around a reference. */
  parents: Map<Node, Node>;
  /**
   * The nodes CODE-3 judges (`await`, `for await`, `import()`, `import.meta`, each with whether
   * it is below a function), in the order of a depth-first walk in source order: collected by
   * this walk, so a check does not walk the whole tree a second time.
   */
  syntax: SyntaxNode[];
}

export interface SyntaxNode {
  node: AwaitExpression | ForOfStatement | ImportExpression | MetaProperty;
  insideFunction: boolean;
}

type Mode = 'expr' | 'assign' | 'declare';

interface Declare {
  kind: BindingKind;
  declaration: Node;
  target: Scope;
}

interface Item {
  node: Node;
  scope: Scope;
  mode: Mode;
  declare: Declare | undefined;
  /** Below a function (its parameters and body), as CODE-3 asks. */
  inFunction: boolean;
}

/**
 * Scope analysis over the ESTree: module, function, block, catch, class and loop scopes;
 * `var` hoists to the nearest function; labels, non-computed property keys and member
 * names are not references, shorthand properties are. References are collected during one
 * walk and resolved after it, so hoisting needs no second pass. The walk uses an explicit
 * stack: a deeply nested program cannot overflow the call stack.
 */
export function analyzeScopes(program: Program): ScopeAnalysis {
  const module = new Scope(undefined, true);
  const pending: { id: Identifier; scope: Scope }[] = [];
  const declarations = new Map<Identifier, Binding>();
  const parents = new Map<Node, Node>();
  const syntax: SyntaxNode[] = [];
  const stack: Item[] = [];

  const declare = (d: Declare, id: Identifier): void => {
    const binding: Binding = { name: id.name, kind: d.kind, id, declaration: d.declaration };
    if (!d.target.bindings.has(id.name)) d.target.bindings.set(id.name, binding);
    if (!declarations.has(id)) declarations.set(id, binding);
  };

  const visit = (item: Item, out: Item[]): void => {
    const { node, scope, mode } = item;
    // Set once the children are a function's: enterFunction is the last thing its cases do.
    let inFunction = item.inFunction;
    const add = (child: Node | null | undefined, s: Scope = scope, m: Mode = 'expr', d?: Declare): void => {
      if (!child) return;
      parents.set(child, node);
      out.push({ node: child, scope: s, mode: m, declare: d, inFunction });
    };
    const addAll = (children: readonly (Node | null)[], s: Scope = scope, m: Mode = 'expr', d?: Declare): void => {
      for (const c of children) add(c, s, m, d);
    };
    const enterFunction = (fn: FunctionNode, outer: Scope): void => {
      inFunction = true;
      const fnScope = new Scope(outer, true);
      addAll(fn.params, fnScope, 'declare', { kind: 'param', declaration: fn, target: fnScope });
      if (fn.body.type === 'BlockStatement') {
        // Parameter defaults must not see the body's declarations, hence a scope of its own.
        const bodyScope = new Scope(fnScope, true);
        parents.set(fn.body, fn);
        for (const s of fn.body.body) {
          parents.set(s, fn.body);
          out.push({ node: s, scope: bodyScope, mode: 'expr', declare: undefined, inFunction });
        }
      } else add(fn.body, fnScope);
    };

    if (node.type === 'AwaitExpression' || node.type === 'ImportExpression' || node.type === 'MetaProperty' || (node.type === 'ForOfStatement' && node.await)) {
      syntax.push({ node, insideFunction: item.inFunction });
    }
    switch (node.type) {
      case 'Identifier':
        if (mode === 'declare' && item.declare) declare(item.declare, node);
        else pending.push({ id: node, scope });
        return;
      case 'VariableDeclaration': {
        const kind: BindingKind = node.kind === 'var' ? 'var' : node.kind === 'let' ? 'let' : node.kind === 'const' ? 'const' : 'using';
        const target = kind === 'var' ? scope.varScope() : scope;
        for (const d of node.declarations) {
          parents.set(d, node);
          parents.set(d.id, d);
          out.push({ node: d.id, scope, mode: 'declare', declare: { kind, declaration: d, target }, inFunction });
          if (d.init) {
            parents.set(d.init, d);
            out.push({ node: d.init, scope, mode: 'expr', declare: undefined, inFunction });
          }
        }
        return;
      }
      case 'FunctionDeclaration':
        if (node.id) {
          parents.set(node.id, node);
          declare({ kind: 'function', declaration: node, target: scope }, node.id);
        }
        enterFunction(node, scope);
        return;
      case 'FunctionExpression': {
        let outer = scope;
        if (node.id) {
          outer = new Scope(scope, false);
          parents.set(node.id, node);
          declare({ kind: 'function', declaration: node, target: outer }, node.id);
        }
        enterFunction(node, outer);
        return;
      }
      case 'ArrowFunctionExpression':
        enterFunction(node, scope);
        return;
      case 'ClassDeclaration':
      case 'ClassExpression': {
        const classScope = new Scope(scope, false);
        if (node.id) {
          parents.set(node.id, node);
          if (node.type === 'ClassDeclaration') declare({ kind: 'class', declaration: node, target: scope }, node.id);
          declare({ kind: 'class', declaration: node, target: classScope }, node.id);
        }
        add(node.superClass, classScope);
        parents.set(node.body, node);
        for (const member of node.body.body) {
          parents.set(member, node.body);
          out.push({ node: member, scope: classScope, mode: 'expr', declare: undefined, inFunction });
        }
        return;
      }
      case 'MethodDefinition':
      case 'PropertyDefinition':
        if (node.computed) add(node.key);
        add(node.value);
        return;
      case 'StaticBlock':
        addAll(node.body, new Scope(scope, true));
        return;
      case 'BlockStatement':
        addAll(node.body, new Scope(scope, false));
        return;
      case 'CatchClause': {
        const catchScope = new Scope(scope, false);
        add(node.param, catchScope, 'declare', { kind: 'catch', declaration: node, target: catchScope });
        add(node.body, catchScope);
        return;
      }
      case 'ForStatement': {
        const loop = new Scope(scope, false);
        addAll([node.init ?? null, node.test ?? null, node.update ?? null, node.body], loop);
        return;
      }
      case 'ForInStatement':
      case 'ForOfStatement': {
        const loop = new Scope(scope, false);
        add(node.left, loop, node.left.type === 'VariableDeclaration' ? 'expr' : 'assign');
        addAll([node.right, node.body], loop);
        return;
      }
      case 'SwitchStatement':
        add(node.discriminant);
        addAll(node.cases, new Scope(scope, false));
        return;
      case 'LabeledStatement':
        add(node.body);
        return;
      case 'MemberExpression':
        add(node.object);
        if (node.computed) add(node.property);
        return;
      case 'Property':
        if (node.computed) add(node.key);
        add(node.value, scope, mode, item.declare);
        return;
      case 'ObjectPattern':
        addAll(node.properties, scope, mode, item.declare);
        return;
      case 'ArrayPattern':
        addAll(node.elements, scope, mode, item.declare);
        return;
      case 'RestElement':
        add(node.argument, scope, mode, item.declare);
        return;
      case 'AssignmentPattern':
        add(node.left, scope, mode, item.declare);
        add(node.right);
        return;
      case 'AssignmentExpression':
        add(node.left, scope, 'assign');
        add(node.right);
        return;
      case 'ImportDeclaration':
        for (const spec of node.specifiers) {
          parents.set(spec, node);
          parents.set(spec.local, spec);
          declare({ kind: 'import', declaration: spec, target: scope }, spec.local);
        }
        return;
      case 'ExportNamedDeclaration':
        add(node.declaration);
        // `export { a as b }` reads the local `a`; with `from` both names belong to another module.
        if (!node.source) for (const spec of node.specifiers) if (spec.local.type === 'Identifier') add(spec.local);
        return;
      case 'ExportDefaultDeclaration':
        add(node.declaration);
        return;
      case 'Program':
        addAll(node.body);
        return;
      case 'ExportAllDeclaration':
      case 'MetaProperty':
      case 'BreakStatement':
      case 'ContinueStatement':
      case 'PrivateIdentifier':
      case 'Literal':
      case 'ThisExpression':
      case 'Super':
      case 'TemplateElement':
        return;
      default:
        addAll(childNodes(node));
    }
  };

  stack.push({ node: program, scope: module, mode: 'expr', declare: undefined, inFunction: false });
  const out: Item[] = [];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    out.length = 0;
    visit(item, out);
    // Reversed onto the stack so children are visited in source order.
    for (let i = out.length - 1; i >= 0; i--) stack.push(out[i]!);
  }

  const references = pending.sort((a, b) => a.id.start - b.id.start).map(({ id, scope }) => ({ id, binding: scope.lookup(id.name) }));
  return { module, references, declarations, parents, syntax };
}

/** References that no declaration in the program binds. */
export function freeReferences(analysis: ScopeAnalysis): Reference[] {
  return analysis.references.filter((r) => r.binding === undefined);
}
