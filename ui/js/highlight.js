// A small JavaScript/TypeScript highlighter: comments, strings (template
// literals included), numbers, keywords and called names become spans with a
// class; everything else stays text. Enough for the code a model writes and
// for tool declarations, without a library or a build step.
import {append, h} from './dom.js';

const keywords = new Set(('await async break case catch class const continue debugger default delete do else export ' +
                          'extends finally for function if import in instanceof let new of return static super switch ' +
                          'this throw try typeof var void while with yield declare interface type readonly')
                             .split(' '));
const literals = new Set(['true', 'false', 'null', 'undefined', 'NaN', 'Infinity']);
const types = new Set(['string', 'number', 'boolean', 'unknown', 'any', 'never', 'object', 'Promise', 'Record']);

// Sticky patterns, tried in order at the current position (no slicing, so a
// long block costs one pass).
const rules = [
  ['comment', /\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)/y],
  ['string', /'(?:[^'\\\n]|\\.)*'?|"(?:[^"\\\n]|\\.)*"?|`(?:[^`\\]|\\[\s\S])*`?/y],
  ['number', /(?<![\w$])(?:0[xX][\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?n?)/y],
  ['word', /[A-Za-z_$][\w$]*/y],
  ['', /\s+|[^\sA-Za-z_$\d'"`/]+|./y],
];
const calledAfter = /\s*\(/y;

// [kind, text] pairs; kind is '' for plain text.
export function tokenize(code) {
  const out = [];
  const push = (kind, text) => {
    const last = out[out.length - 1];
    if (last && last[0] === kind) last[1] += text;
    else out.push([kind, text]);
  };
  let i = 0;
  while (i < code.length) {
    for (const [kind, pattern] of rules) {
      pattern.lastIndex = i;
      const m = pattern.exec(code);
      if (!m || !m[0]) continue;
      i += m[0].length;
      if (kind !== 'word') {
        push(kind, m[0]);
      } else {
        calledAfter.lastIndex = i;
        const word = m[0];
        push(keywords.has(word) ? 'keyword' : literals.has(word) ? 'literal' : types.has(word) ? 'type'
             : calledAfter.test(code) ? 'call' : '', word);
      }
      break;
    }
  }
  return out;
}

// <pre class="code"><code>…</code></pre> with the tokens as spans.
export function codeBlock(code, {label} = {}) {
  const inner = h('code', {});
  for (const [kind, text] of tokenize(code)) append(inner, kind ? h('span', {class: `tok-${kind}`}, text) : text);
  return h('pre', {class: 'code', tabindex: 0, 'aria-label': label || 'code'}, inner);
}
