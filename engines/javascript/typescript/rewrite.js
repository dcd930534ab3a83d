// Bundled by esbuild at build time (../CMakeLists.txt) into the engine's /stdlib/rewrite.js. The
// QuickJS driver loads it the first time code that mentions `await` or `import` fails to compile
// as a script, takes the function below and deletes the global again
// (docs/languages.md#javascript).
//
// Code runs as a classic global script, so that its declarations persist in a context. Two
// module features are rewritten into script code, in one pass over acorn's tree:
//
// Import declarations (docs/languages.md#javascript-built-in-modules). Every top-level
// `import ... from 'm'` is removed (its newlines stay) and its bindings are declared by `var`
// statements on the first line, before any other code runs, as a module's imports are resolved
// before its body: `import fs, { join as j } from 'node:fs'` binds
// `fs = __sandbox_import("node:fs", "default"), j = __sandbox_import("node:fs", "join")`,
// `import * as ns` binds the namespace `__sandbox_import("m")`, and `import 'm'` is the call
// alone. __sandbox_import (prelude.js) throws Node's errors for a module that is not built in
// and for a missing export. Code with an `export`, or an import below the top level, is not
// rewritten.
//
// Top-level await. QuickJS has it in modules (QuickJS-ng also in global scripts evaluated with
// JS_EVAL_FLAG_ASYNC, which the driver does not use), and a module's declarations do not
// persist on the global object, so code with top-level await is rewritten the way a console
// does it (the hoisting technique of Node's REPL):
//   - every top-level declared name (let, const, var at any depth outside functions, function
//     and class declarations, destructuring included) is declared by one `var` before the body;
//   - the body runs in an async arrow function, started at once; its promise is the script's
//     completion value, which the driver awaits like any promise result;
//   - declarations become assignments to those globals: `let {a, b: [c]} = await f();` becomes
//     `void (({a, b: [c]} = await f()));`, `class K {}` becomes `K = class K {};`, and a
//     function declaration stays where it is (hoisted inside the body) and is copied to the
//     global at the start of the body;
//   - the last statement, when it is an expression, becomes `return (<expression>)`: the result.
// Everything stays on the lines it was on, so error lines still point into the user's code.
// Code the parser rejects (a top-level return included), and code with neither an import
// declaration nor a top-level await are not rewritten (null): the driver then reports QuickJS's
// own SyntaxError.
import { Parser } from 'acorn';

const kParseOptions = {
  ecmaVersion: 'latest',
  sourceType: 'script',
  allowAwaitOutsideFunction: true,
  allowReturnOutsideFunction: false,
  allowHashBang: false,
  // Import declarations are parsed in a script (and checked to be top-level below), so that the
  // rest of the code keeps the script's sloppy-mode rules.
  allowImportExportEverywhere: true,
};

const isNode = (v) => v !== null && typeof v === 'object' && typeof v.type === 'string';

// The nodes directly below `node`, in source order.
const childrenOf = (node) => {
  const out = [];
  for (const key of Object.keys(node)) {
    const v = node[key];
    if (Array.isArray(v)) {
      for (const item of v) if (isNode(item)) out.push(item);
    } else if (isNode(v)) {
      out.push(v);
    }
  }
  return out;
};

// Names bound by a declaration pattern (explicit stack: patterns can nest deeply).
const collectNames = (pattern, names) => {
  const stack = [pattern];
  while (stack.length > 0) {
    const p = stack.pop();
    if (p === null) continue;
    switch (p.type) {
      case 'Identifier': names.add(p.name); break;
      case 'ObjectPattern': for (const prop of p.properties) stack.push(prop.type === 'RestElement' ? prop.argument : prop.value); break;
      case 'ArrayPattern': for (const e of p.elements) stack.push(e); break;
      case 'RestElement': stack.push(p.argument); break;
      case 'AssignmentPattern': stack.push(p.left); break;
      default: break;
    }
  }
};

globalThis.__sandbox_rewrite = (code) => {
  let program;
  if (code.startsWith('#!')) return null; // the rewrite would move it off the first line
  try {
    program = Parser.parse(code, kParseOptions);
  } catch (e) {
    return null;
  }
  const names = new Set();
  const functionNames = [];
  const edits = []; // {at, end, text, seq, ofImport}: replace code[at, end) by text
  const edit = (at, end, text, ofImport = false) =>
    edits.push({ at, end, text, seq: edits.length, ofImport });
  const insert = (at, text) => edit(at, at, text);
  let hasAwait = false;
  const imports = []; // the declarators and calls of the `var` that replaces the imports

  const rewriteDeclaration = (node, parent) => {
    for (const d of node.declarations) collectNames(d.id, names);
    const keywordEnd = node.start + node.kind.length;
    const inForHead = (parent.type === 'ForStatement' && parent.init === node) ||
        ((parent.type === 'ForInStatement' || parent.type === 'ForOfStatement') && parent.left === node);
    if (inForHead) { // `for (var i = 0; ...)` -> `for ( i = 0; ...)`
      edit(node.start, keywordEnd, '');
      return;
    }
    edit(node.start, keywordEnd, 'void (');
    for (const d of node.declarations) {
      insert(d.start, '(');
      insert(d.end, d.init === null && node.kind !== 'var' ? ' = undefined)' : ')');
    }
    const last = node.declarations[node.declarations.length - 1];
    insert(last.end, ')');
    if (code[node.end - 1] !== ';') insert(node.end, ';');
  };

  const rewriteImport = (node) => {
    const source = JSON.stringify(node.source.value);
    if (node.specifiers.length === 0) imports.push(`__sandbox_import(${source})`);
    for (const s of node.specifiers) {
      const local = s.local.name;
      if (s.type === 'ImportNamespaceSpecifier') {
        imports.push(`${local} = __sandbox_import(${source})`);
      } else {
        const imported = s.type === 'ImportDefaultSpecifier' ? 'default'
            : s.imported.type === 'Identifier' ? s.imported.name : s.imported.value;
        imports.push(`${local} = __sandbox_import(${source}, ${JSON.stringify(imported)})`);
      }
    }
    edit(node.start, node.end, code.slice(node.start, node.end).replace(/[^\n]/g, ''), true);
  };

  // Depth-first over everything outside functions, without recursion.
  const stack = [{ node: program, parent: null }];
  while (stack.length > 0) {
    const { node, parent } = stack.pop();
    const topLevel = parent === program;
    switch (node.type) {
      case 'ImportDeclaration':
        if (!topLevel) return null;
        rewriteImport(node);
        continue;
      case 'ExportNamedDeclaration':
      case 'ExportDefaultDeclaration':
      case 'ExportAllDeclaration':
        return null;
      case 'FunctionDeclaration':
        if (topLevel) {
          names.add(node.id.name);
          functionNames.push(node.id.name);
        }
        continue;
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
      case 'StaticBlock':
        continue;
      case 'AwaitExpression':
        hasAwait = true;
        break;
      case 'ForOfStatement':
        if (node.await) hasAwait = true;
        break;
      case 'ClassDeclaration':
        if (topLevel) {
          names.add(node.id.name);
          insert(node.start, `${node.id.name} = `);
          insert(node.end, ';');
        }
        break;
      case 'VariableDeclaration':
        if (topLevel || node.kind === 'var') rewriteDeclaration(node, parent);
        break;
      default:
        break;
    }
    const children = childrenOf(node);
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], parent: node });
  }
  // A script that binds the name await (`function await() {}`) uses it as an identifier.
  const awaits = hasAwait && !names.has('await');
  if (!awaits && imports.length === 0) return null;
  // The bindings of the imports (side-effect imports as declarators of an unused name would
  // leak a global; they are calls on their own), in source order.
  const importPrefix = imports
    .map((i) => (i.startsWith('__sandbox_import(') ? `${i}; ` : `var ${i}; `))
    .join('');

  const body = program.body;
  const last = body.length > 0 ? body[body.length - 1] : null;
  if (awaits && last !== null && last.type === 'ExpressionStatement') {
    insert(last.start, 'return (');
    insert(last.expression.end, ')');
  }

  // Without a top-level await only the imports' edits apply: the rest stays a plain script.
  const applied = awaits ? edits : edits.filter((e) => e.ofImport);
  applied.sort((a, b) => a.at - b.at || a.seq - b.seq); // same position: in the order made
  let out = '';
  let pos = 0;
  for (const e of applied) {
    out += code.slice(pos, e.at) + e.text;
    pos = e.end;
  }
  out += code.slice(pos);
  if (!awaits) return importPrefix + out;
  const declare = names.size > 0 ? `var ${[...names].join(', ')}; ` : '';
  const copyFunctions = functionNames.map((n) => `this.${n} = ${n}; `).join('');
  return `${importPrefix}${declare}(async () => { ${copyFunctions}${out}\n})()`;
};
