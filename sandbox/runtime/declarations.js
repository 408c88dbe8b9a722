'use strict';
// Finds the names an agent's code block declares at its top level (const, let,
// var, function, class, including destructuring patterns), so the runtime can
// carry them over to the next block of the same task. A small lexer, not a
// parser: it skips strings, template literals, comments and regex literals and
// tracks bracket depth. Over-reporting a name is harmless (the runtime exports
// a name only if it is bound); see docs/architecture/sandbox.md for the limits.

const IDENT_START = /[A-Za-z_$\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
// After one of these a '/' starts a regex literal, not a division.
const REGEX_AFTER = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '+', '-', '*', '%', '<', '>', '~', '^']);
const REGEX_AFTER_WORDS = new Set(['return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw', 'case', 'do', 'else', 'yield', 'await']);

// Splits code into tokens: {type: 'word'|'punct', value, depth, newlineBefore}.
function tokenize(code) {
  const tokens = [];
  const stack = []; // '(', '[', '{', or '`' for a ${ inside a template
  let i = 0;
  let newline = false;
  const last = () => (tokens.length ? tokens[tokens.length - 1] : null);
  const push = (type, value) => {
    tokens.push({ type, value, depth: stack.length, newlineBefore: newline });
    newline = false;
  };
  const regexAllowed = () => {
    const t = last();
    if (!t) return true;
    if (t.type === 'word') return REGEX_AFTER_WORDS.has(t.value);
    if (t.type === 'punct') return REGEX_AFTER.has(t.value);
    return false;
  };
  const skipTemplate = () => {
    // i is just past a backtick or a '}' closing a ${...}; returns true when it entered a ${.
    while (i < code.length) {
      const c = code[i];
      if (c === '\\') { i += 2; continue; }
      if (c === '`') { i++; return false; }
      if (c === '$' && code[i + 1] === '{') { i += 2; stack.push('`'); return true; }
      i++;
    }
    return false;
  };
  while (i < code.length) {
    const c = code[i];
    if (c === '\n') { newline = true; i++; continue; }
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '/' && code[i + 1] === '/') { while (i < code.length && code[i] !== '\n') i++; continue; }
    if (c === '/' && code[i + 1] === '*') {
      const end = code.indexOf('*/', i + 2);
      if (code.slice(i, end < 0 ? code.length : end).includes('\n')) newline = true;
      i = end < 0 ? code.length : end + 2;
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      while (i < code.length && code[i] !== c && code[i] !== '\n') i += code[i] === '\\' ? 2 : 1;
      i++;
      push('string', '');
      continue;
    }
    if (c === '`') { i++; skipTemplate(); push('string', ''); continue; }
    if (c === '/' && regexAllowed()) {
      i++;
      let inClass = false;
      while (i < code.length && code[i] !== '\n') {
        if (code[i] === '\\') { i += 2; continue; }
        if (code[i] === '[') inClass = true;
        else if (code[i] === ']') inClass = false;
        else if (code[i] === '/' && !inClass) break;
        i++;
      }
      i++;
      while (i < code.length && IDENT_PART.test(code[i])) i++;
      push('string', '');
      continue;
    }
    if (IDENT_START.test(c)) {
      let j = i + 1;
      while (j < code.length && IDENT_PART.test(code[j])) j++;
      push('word', code.slice(i, j));
      i = j;
      continue;
    }
    if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < code.length && /[0-9A-Za-z_.]/.test(code[j])) j++;
      push('number', code.slice(i, j));
      i = j;
      continue;
    }
    if (c === '.' && code.startsWith('...', i)) { push('punct', '...'); i += 3; continue; }
    if (c === '(' || c === '[' || c === '{') { push('punct', c); stack.push(c); i++; continue; }
    if (c === ')' || c === ']' || c === '}') {
      const top = stack.pop();
      if (top === '`' && c === '}') { skipTemplate(); continue; }
      push('punct', c);
      // A closing bracket belongs to the depth outside it.
      tokens[tokens.length - 1].depth = stack.length;
      i++;
      continue;
    }
    if (c === '=' && code[i + 1] === '>') { push('punct', '=>'); i += 2; continue; }
    push('punct', c);
    i++;
  }
  return tokens;
}

// Names bound by the pattern starting at tokens[k]; returns [names, index after pattern].
function patternNames(tokens, k) {
  const t = tokens[k];
  if (!t) return [[], k];
  if (t.type === 'word') return [[t.value], k + 1];
  if (t.type !== 'punct' || (t.value !== '{' && t.value !== '[')) return [[], k + 1];
  const names = [];
  const close = t.value === '{' ? '}' : ']';
  const isObject = t.value === '{';
  const depth = t.depth;
  let j = k + 1;
  // Walk elements separated by commas at depth+1.
  while (j < tokens.length && !(tokens[j].value === close && tokens[j].depth === depth)) {
    let e = j;
    if (tokens[e].value === ',') { j++; continue; }
    if (tokens[e].value === '...') e++;
    // Object element "key: pattern" binds the pattern; "key" alone binds key.
    if (isObject && tokens[e + 1] && tokens[e + 1].value === ':' && tokens[e + 1].depth === depth + 1) e += 2;
    else if (isObject && tokens[e].value === '[') {
      // Computed key: skip to its ']' then ':'.
      while (e < tokens.length && !(tokens[e].value === ']' && tokens[e].depth === depth + 1)) e++;
      e += 2;
    }
    const [inner, after] = patternNames(tokens, e);
    names.push(...inner);
    j = after;
    // Skip a default value up to the next comma or the close at this depth.
    while (j < tokens.length && !((tokens[j].value === ',' || tokens[j].value === close) && tokens[j].depth === depth + (tokens[j].value === close ? 0 : 1))) j++;
  }
  return [names, j + 1];
}

const OPERATOR_BEFORE = new Set(['=', '(', ',', ':', '?', '|', '&', '!', '+', '-', '*', '/', '%', '<', '>', '~', '^', '[', '.', '=>']);

// Returns the sorted, de-duplicated names declared at the top level of `code`.
function topLevelDeclarations(code) {
  // Every declaration starts with one of these words: without any of them
  // (`return 1+1`, most one-line blocks) there is nothing to tokenize.
  if (!/\b(?:const|let|var|function|class)\b/.test(code)) return [];
  const tokens = tokenize(code);
  const names = new Set();
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (t.type !== 'word' || t.depth !== 0) continue;
    const prev = tokens[k - 1];
    if (prev && prev.value === '.') continue; // obj.let, obj.class
    if (t.value === 'const' || t.value === 'let' || t.value === 'var') {
      let j = k + 1;
      for (;;) {
        const [found, after] = patternNames(tokens, j);
        found.forEach((n) => names.add(n));
        // Skip the initializer to a comma (another declarator) or the statement end.
        j = after;
        while (j < tokens.length && tokens[j].depth >= 0) {
          const tj = tokens[j];
          if (tj.depth === 0 && tj.value === ';') break;
          if (tj.depth === 0 && tj.value === ',') break;
          if (tj.depth === 0 && tj.newlineBefore && tokens[j - 1] && !OPERATOR_BEFORE.has(tokens[j - 1].value) && tokens[j - 1].value !== ',') break;
          j++;
        }
        if (tokens[j] && tokens[j].value === ',' && tokens[j].depth === 0) { j++; continue; }
        break;
      }
      continue;
    }
    const isDeclStart = !prev || prev.value === ';' || prev.value === '}' ||
      (t.newlineBefore && !OPERATOR_BEFORE.has(prev.value) && !REGEX_AFTER_WORDS.has(prev.value));
    let kw = k;
    if (t.value === 'async' && tokens[k + 1] && tokens[k + 1].value === 'function') kw = k + 1;
    if (!isDeclStart) continue;
    if (tokens[kw].value === 'function') {
      let j = kw + 1;
      if (tokens[j] && tokens[j].value === '*') j++;
      if (tokens[j] && tokens[j].type === 'word') names.add(tokens[j].value);
    } else if (t.value === 'class' && tokens[k + 1] && tokens[k + 1].type === 'word') {
      names.add(tokens[k + 1].value);
    }
  }
  return [...names].sort();
}

module.exports = { topLevelDeclarations };
