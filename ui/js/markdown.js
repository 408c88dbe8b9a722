// SKILL.md as a page: front matter as a table, then headings, paragraphs,
// lists, quotes, fenced code and inline code, bold, italics and http(s)
// links. Built from text nodes (dom.js), so no markup in a skill can run.
import {codeBlock} from './highlight.js';
import {append, h} from './dom.js';

export function renderMarkdown(text) {
  const root = h('div', {class: 'markdown'});
  let lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines[0] === '---') {
    const end = lines.indexOf('---', 1);
    if (end > 0) {
      append(root, frontMatter(lines.slice(1, end)));
      lines = lines.slice(end + 1);
    }
  }
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (/^\s*$/.test(line)) {
      i++;
    } else if ((m = /^```\s*([\w-]*)/.exec(line))) {
      const body = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) body.push(lines[i]);
      i++;
      append(root, codeBlock(body.join('\n'), {label: m[1] ? `${m[1]} code` : 'code'}));
    } else if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
      // Levels shift down one: the page's own title is the h2.
      append(root, h(`h${Math.min(6, m[1].length + 2)}`, {}, inline(m[2])));
      i++;
    } else if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const list = h(ordered ? 'ol' : 'ul', {});
      for (; i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i]); i++) {
        append(list, h('li', {}, inline(lines[i].replace(/^\s*([-*+]|\d+[.)])\s+/, ''))));
      }
      append(root, list);
    } else if (line.startsWith('>')) {
      const quoted = [];
      for (; i < lines.length && lines[i].startsWith('>'); i++) quoted.push(lines[i].replace(/^>\s?/, ''));
      append(root, h('blockquote', {}, inline(quoted.join(' '))));
    } else {
      const para = [];
      for (; i < lines.length && !/^\s*$/.test(lines[i]) && !/^(```|#{1,6}\s|>|\s*([-*+]|\d+[.)])\s)/.test(lines[i]); i++) {
        para.push(lines[i]);
      }
      append(root, h('p', {}, inline(para.join(' '))));
    }
  }
  return root;
}

function frontMatter(lines) {
  const table = h('table', {class: 'kv'});
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    append(table, h('tr', {}, h('th', {}, line.slice(0, colon).trim()), h('td', {}, line.slice(colon + 1).trim())));
  }
  return table;
}

// `code`, **bold**, *em* / _em_, [text](http...).
function inline(text) {
  const out = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|_([^_]+)_|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0, m;
  while ((m = pattern.exec(text))) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1] !== undefined) out.push(h('code', {}, m[1]));
    else if (m[2] !== undefined) out.push(h('strong', {}, m[2]));
    else if (m[3] !== undefined || m[4] !== undefined) out.push(h('em', {}, m[3] ?? m[4]));
    else if (/^https?:\/\//.test(m[6])) out.push(h('a', {href: m[6], rel: 'noopener noreferrer'}, m[5]));
    else out.push(`${m[5]} (${m[6]})`);
    last = pattern.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
