// One task: its header (status, user, tokens, result), pending approvals,
// then the conversation turn by turn from the task's events: what the model
// said, each code block, its console output, every tool call, and what the
// model saw back. A live task keeps streaming until it ends.
import {api, download, query, streamEvents} from '../api.js';
import {append, clear, formatBytes, formatMs, formatTime, h, notice, statusBadge} from '../dom.js';
import {codeBlock} from '../highlight.js';
import {connectControl} from './connections.js';

export async function showTask(ctx, id) {
  const path = `/tasks/${encodeURIComponent(id)}`;
  const task = await api(`${path}?transcript=false`, {signal: ctx.signal});
  const header = h('section', {class: 'task-header'});
  const approvals = h('section', {id: 'approvals'});
  const timeline = h('section', {id: 'timeline', 'aria-live': 'polite'});
  const files = h('section', {id: 'files'});
  append(ctx.main, h('p', {}, h('a', {href: '#/tasks'}, '← Tasks')), header, approvals, timeline, files);

  const turns = new Map();  // turn number -> its parts
  const turnOf = (n) => {
    if (!turns.has(n)) {
      const usage = h('span', {class: 'muted'});
      const body = h('div', {class: 'turn-body'});
      const card = h('article', {class: 'turn', dataset: {turn: n}}, h('h2', {}, `Turn ${n} `, usage), body);
      append(timeline, card);
      turns.set(n, {card, usage, body, calls: null, block: null});
    }
    return turns.get(n);
  };

  let view = task;
  const renderHeader = () => renderTaskHeader(header, view, ctx, path);
  renderHeader();
  const refreshApprovals = async () => {
    view = await api(`${path}?transcript=false`);
    renderHeader();
    renderApprovals(approvals, view, path, refreshApprovals);
  };
  renderApprovals(approvals, view, path, refreshApprovals);

  const onEvent = (event) => {
    const d = event.data || {};
    switch (event.event) {
      case 'status':
        view = {...view, status: d.status};
        renderHeader();
        break;
      case 'approval_requested':
      case 'approval_decided':
        refreshApprovals().catch(() => {});  // the task's view lists what still waits
        break;
      case 'llm_end': {
        const t = turnOf(d.turn);
        t.usage.textContent = `· ${(d.usage?.inputTokens ?? 0).toLocaleString()} in / ` +
                              `${(d.usage?.outputTokens ?? 0).toLocaleString()} out tokens`;
        if (d.text) append(t.body, h('div', {class: 'model-text'}, h('h3', {}, 'The model said'), h('p', {}, d.text)));
        break;
      }
      case 'code': {
        const t = turnOf(d.turn);
        const block = h('div', {class: 'block'}, h('h3', {}, 'Code'), codeBlock(d.code, {label: `code of turn ${d.turn}`}));
        t.block = block;
        t.calls = null;
        append(t.body, block);
        break;
      }
      case 'log': {
        const t = turnOf(d.turn);
        let logs = t.block?.querySelector('.logs');
        if (!logs) {
          logs = h('pre', {class: 'logs', 'aria-label': 'console output'});
          append((t.block || t.body), h('h3', {}, 'Console'), logs);
        }
        append(logs, h('span', {class: `log-${d.level}`}, `${d.text}\n`));
        break;
      }
      case 'tool_call': {
        const t = turnOf(d.turn);
        if (!t.calls) {
          t.calls = h('tbody', {});
          append((t.block || t.body), h('h3', {}, 'Tool calls'),
                                     h('table', {class: 'list calls'},
                                       h('thead', {}, h('tr', {}, ['Tool', 'Arguments', 'Result', 'Time', ''].map(
                                                                      (c) => h('th', {scope: 'col'}, c)))),
                                       t.calls));
        }
        append(t.calls, h('tr', {class: d.ok ? '' : 'failed'}, h('td', {}, h('code', {}, d.name)),
                         h('td', {}, argsCell(d)), h('td', {class: 'num'}, formatBytes(d.resultBytes)),
                         h('td', {class: 'num'}, formatMs(d.ms)),
                         h('td', {}, d.ok ? 'ok' : 'failed', d.error ? [' ', h('code', {class: 'error-code'}, String(d.error))] : null)));
        break;
      }
      case 'needs_authorization': {
        // A call went to a server where each user connects their own account, and this user has not.
        const t = turnOf(d.turn);
        const server = String(d.server || '');
        append((t.block || t.body), h('div', {class: 'notice warn needs-authorization', role: 'status'},
                                     h('p', {}, h('code', {}, server), ` needs the user's own account connected: ${view.userId} `,
                                       'has not connected it, so the code could not call it. ', connectControl(view.userId, server),
                                       ' (or see ', h('a', {href: `#/connections?userId=${encodeURIComponent(view.userId)}`}, 'Connections'),
                                       ')')));
        break;
      }
      case 'observation': {
        const t = turnOf(d.turn);
        append((t.block || t.body), h('h3', {}, d.isError ? 'Error (as the model saw it)' : 'Result (as the model saw it)'),
                                   h('pre', {class: d.isError ? 'observation error' : 'observation'}, d.text),
                                   d.truncated ? h('p', {class: 'muted'}, 'Cut for the model; the whole text is in the workspace.') : null);
        break;
      }
      case 'files': {
        const t = turnOf(d.turn ?? turns.size);
        const written = (d.written || []).map((f) => (typeof f === 'string' ? f : f.path));
        if (written.length) append((t.block || t.body), h('p', {class: 'muted'}, `Files written: ${written.join(', ')}`));
        break;
      }
      case 'error':
        append(timeline, notice('error', 'The task hit an error', d.message || JSON.stringify(d)));
        break;
      case 'end':
        view = {...view, ...d};
        renderHeader();
        loadFiles(files, path);
        break;
      default:
        break;
    }
  };

  loadFiles(files, path);
  await streamEvents(`${path}/events${query({after: 0})}`, onEvent, ctx.signal);
}

function argsCell(d) {
  if (d.args !== undefined) {
    const text = JSON.stringify(d.args, null, 2);
    return text.length > 120 ? h('details', {}, h('summary', {}, text.slice(0, 60).replace(/\s+/g, ' ') + '…'),
                                 h('pre', {}, text))
                             : h('code', {}, JSON.stringify(d.args));
  }
  if (d.argsPreview !== undefined) {
    return h('details', {}, h('summary', {}, `${formatBytes(d.argsBytes)} (cut)`), h('pre', {}, d.argsPreview));
  }
  return h('span', {class: 'muted'}, '–');
}

function renderTaskHeader(header, view, ctx, path) {
  clear(header);
  const live = view.status === 'queued' || view.status === 'running' || view.status === 'awaiting_approval';
  const cancel = live ? h('button', {type: 'button', class: 'danger', onclick: async (e) => {
                                       e.target.disabled = true;
                                       try {
                                         await api(path, {method: 'DELETE'});
                                       } catch (err) {
                                         append(header, notice('error', 'Not cancelled', err.message));
                                         e.target.disabled = false;
                                       }
                                     }}, 'Cancel task')
                      : null;
  append(header, 
      h('h1', {}, 'Task ', statusBadge(view.status)), h('p', {class: 'task-prompt'}, view.task),
      h('table', {class: 'kv'},
        kv('Task id', h('code', {}, view.taskId)), kv('User', view.userId),
        kv('Conversation', h('code', {}, view.conversationId)), kv('Created', formatTime(view.createdAt)),
        kv('Duration', formatMs(view.durationMs)), kv('Turns', String(view.turns)),
        kv('Tokens', `${(view.usage?.inputTokens ?? 0).toLocaleString()} in / ` +
                         `${(view.usage?.outputTokens ?? 0).toLocaleString()} out`),
        // The OpenTelemetry trace the task ran in: look it up in Jaeger, Tempo or the collector's backend.
        view.traceId ? kv('Trace', h('code', {id: 'trace-id'}, view.traceId)) : null),
      cancel);
  if (view.result) append(header, h('h2', {}, 'Result'), h('div', {class: 'result', id: 'result'}, view.result));
  if (view.error) {
    append(header, notice('error', view.error.code || 'Error', view.error.message || '',
                         view.error.hint ? ` (${view.error.hint})` : ''));
  }
}

// Pending approvals (GET /tasks/{id} "pendingApprovals"), with approve and
// deny, for servers that ask before some tool calls.
function renderApprovals(section, view, path, refresh) {
  clear(section);
  const pending = view.pendingApprovals || [];
  if (!pending.length) return;
  append(section, h('h2', {}, 'Waiting for approval'));
  for (const a of pending) {
    const decide = (decision, scope) => async () => {
      try {
        const body = scope ? {decision, scope} : {decision};
        await api(`${path}/approvals/${encodeURIComponent(a.id)}`, {method: 'POST', body});
        await refresh();  // renders the approvals still pending
      } catch (e) {
        append(section, notice('error', 'The decision was not taken', e.message));
      }
    };
    append(section, h('div', {class: 'approval'}, h('p', {}, h('code', {}, a.tool), a.reason ? ` — ${a.reason}` : ''),
                     h('pre', {}, JSON.stringify(a.arguments, null, 2)),
                     h('button', {type: 'button', onclick: decide('approve')}, 'Approve'), ' ',
                     h('button', {type: 'button', onclick: decide('approve', 'task'), title: 'and every later call of this tool in this task'},
                       'Approve for the task'), ' ',
                     h('button', {type: 'button', class: 'danger', onclick: decide('deny')}, 'Deny')));
  }
}

async function loadFiles(section, path) {
  let listing;
  try {
    listing = await api(`${path}/files`);
  } catch (e) {
    append(clear(section), h('h2', {}, 'Workspace files'),
                          h('p', {class: 'muted'}, e.status === 404 ? 'This task has written no files.' : e.message));
    return;
  }
  const list = h('ul', {class: 'files'});
  for (const f of listing.files) {
    append(list, h('li', {}, h('button', {type: 'button', class: 'link',
                                         onclick: () => download(`${path}/files/${f.path.split('/').map(encodeURIComponent).join('/')}`,
                                                                 f.path.split('/').pop())},
                              f.path),
                  ' ', h('span', {class: 'muted'}, formatBytes(f.size))));
  }
  append(clear(section), h('h2', {}, 'Workspace files'), listing.files.length ? list : h('p', {class: 'muted'}, 'None.'));
}

function kv(k, v) {
  return h('tr', {}, h('th', {scope: 'row'}, k), h('td', {}, v));
}
