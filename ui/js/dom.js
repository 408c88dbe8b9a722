// Building the page without innerHTML: every value from the API becomes a text
// node, so nothing a tool, a model or a user wrote can turn into markup.

// h('a', {href: '#/x', class: 'link', onclick: fn}, 'text', child, [more])
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  return append(el, ...children);
}

// Element.append, but null, undefined and false add nothing (the DOM's own
// would add the text "null"), and arrays are spread.
export function append(el, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// The same for SVG elements (charts).
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  return append(el, ...children);
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

export function formatBytes(n) {
  if (n === null || n === undefined) return '–';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function formatTime(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  return d.toLocaleString(undefined, {dateStyle: 'short', timeStyle: 'medium'});
}

export function statusBadge(status) {
  return h('span', {class: `badge status-${status}`}, status.replace('_', ' '));
}

// A message with what to do, for empty lists and errors.
export function notice(kind, title, ...detail) {
  return h('div', {class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status'}, h('strong', {}, title),
           detail.length ? h('p', {}, ...detail) : null);
}

export function debounce(fn, ms) {
  let timer = 0;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
