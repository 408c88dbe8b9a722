'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { topLevelDeclarations } = require('../declarations');

const cases = [
  ['const a = 1, b = {x: [1, 2]}, c = f(1, 2)', ['a', 'b', 'c']],
  ['let {d, e: ee, ...rest} = obj; var [f1, , g = 3, ...h] = arr', ['d', 'ee', 'f1', 'g', 'h', 'rest']],
  ['function fn() { const inner = 1 }\nasync function af() {}\nfunction* gen() {}', ['af', 'fn', 'gen']],
  ['class K { m() { let no = 1 } }', ['K']],
  ['const s = `${1 + 2} ${"}"}`; const r = /ab\\/c[/]/g;', ['r', 's']],
  ['if (x) { let notme = 1 }\nfor (let i = 0; i < 3; i++) {}\nx = function notdecl() {}', []],
  ['const a = 1,\n  b = 2', ['a', 'b']],
  ['const x = cond\n  ? 1\n  : 2\nlater()', ['x']],
  ['// const commented = 1\n/* let also = 2 */ const real = "const fake = 3"', ['real']],
  ['const { [key]: computed, plain = 5 } = obj', ['computed', 'plain']],
  ['obj.let = 1; const q = obj.class', ['q']],
  ['return await foo()', []],
  ['constant = letter + variable; return classes', []],  // the words inside others are no keywords
  ['x = 1\nclass Y {}', ['Y']],
];

for (const [code, expected] of cases) {
  test(`declarations of: ${code.replace(/\n/g, '\\n').slice(0, 60)}`, () => {
    assert.deepEqual(topLevelDeclarations(code), [...expected].sort());
  });
}
