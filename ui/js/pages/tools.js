// Tools: every MCP server with its state, every tool with its description,
// annotations and TypeScript declaration, with search (GET /tools?query=).
import {api, query} from '../api.js';
import {append, clear, debounce, h, notice} from '../dom.js';
import {codeBlock} from '../highlight.js';

export async function showTools(ctx, name) {
  if (name) return showTool(ctx, name);
  const servers = h('div', {id: 'servers'});
  const results = h('div', {id: 'tool-list'});
  const search = h('input', {id: 'tool-search', type: 'search', placeholder: 'search tools, e.g. "read file"',
                             value: ctx.query.q || '', autocomplete: 'off', 'aria-controls': 'tool-list'});
  append(ctx.main, h('h1', {}, 'Tools'), servers,
                  h('div', {class: 'filters'}, h('label', {for: 'tool-search'}, 'Search '), search), results);

  const health = await api('/health', {signal: ctx.signal, accept: [503]}).catch(() => null);
  renderServers(servers, health);

  const run = async () => {
    let answer;
    try {
      answer = await api(`/tools${query({query: search.value.trim()})}`, {signal: ctx.signal});
    } catch (e) {
      if (!ctx.signal.aborted) append(clear(results), notice('error', 'The tools could not be listed', e.message));
      return;
    }
    clear(results);
    if (!answer.tools.length) {
      append(results, search.value ? notice('empty', 'No tool matches', 'Try fewer or other words.')
                                  : notice('empty', 'No tools', 'No MCP server is connected: see servers/README.md.'));
      return;
    }
    append(results, h('p', {class: 'muted'}, `${answer.tools.length} tools`),
                   h('ul', {class: 'cards'}, answer.tools.map((t) => h(
                                                 'li', {class: 'card'},
                                                 h('a', {href: `#/tools/${encodeURIComponent(t.name)}`}, h('code', {}, t.name)),
                                                 h('p', {}, firstLine(t.description))))));
  };
  search.addEventListener('input', debounce(run, 200));
  await run();
}

// A user-scoped server ("scope": "user") shows how many users' instances
// run; mcp.user_instances is the cap on them, not a server.
function serverChip([name, c]) {
  // Details reach admin keys only (/health): without them, the status alone.
  const perUser = c.scope === 'user' ? ` · per user, ${c.instances} running` : '';
  const cap = name === 'mcp.user_instances' && c.max !== undefined ? ` (${c.instances} of ${c.max})` : '';
  const label = name === 'mcp.user_instances' ? `user instances: ${c.status}${cap}` : `${name.slice(4)}: ${c.status}`;
  return h('li', {class: `chip status-${c.status}`, title: c.reason || ''}, label,
           c.tools !== undefined ? ` · ${c.tools} tools` : '', perUser);
}

function renderServers(section, health) {
  const entries = Object.entries(health?.components || {}).filter(([n]) => n.startsWith('mcp.'));
  if (!entries.length) return;
  append(section, h('h2', {}, 'Servers'), h('ul', {class: 'chips'}, entries.map(serverChip)));
}

async function showTool(ctx, name) {
  const tool = await api(`/tools/${encodeURIComponent(name)}`, {signal: ctx.signal});
  const annotations = Object.entries(tool.annotations || {});
  append(ctx.main, h('p', {}, h('a', {href: '#/tools'}, '← Tools')), h('h1', {}, h('code', {}, tool.name)),
                  tool.annotations?.title ? h('p', {}, tool.annotations.title) : null,
                  annotations.length ? h('ul', {class: 'chips'}, annotations.filter(([k]) => k !== 'title').map(([k, v]) => h(
                                                                  'li', {class: 'chip'}, `${k}: ${v}`)))
                                     : null,
                  h('h2', {}, 'Description'), h('p', {class: 'prewrap'}, tool.description || '(none)'),
                  h('h2', {}, 'Signature'), codeBlock(tool.declaration || '', {label: 'TypeScript declaration'}),
                  h('p', {class: 'muted'}, 'Called from code as ', h('code', {}, `await callMCPTool('${tool.name}', {…})`)),
                  h('details', {}, h('summary', {}, 'Input schema (JSON)'),
                    h('pre', {class: 'code'}, JSON.stringify(tool.inputSchema, null, 2))),
                  tool.outputSchema ? h('details', {}, h('summary', {}, 'Output schema (JSON)'),
                                        h('pre', {class: 'code'}, JSON.stringify(tool.outputSchema, null, 2)))
                                    : null);
}

function firstLine(text) {
  const line = (text || '').split('\n')[0];
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
