// Tasks: newest first, filtered by status and user, paged by the API's
// cursor. Rows of queued and running tasks follow the task's own event stream
// (GET /tasks/{id}/events), so they change as the task does (the first few;
// see maxStreams); the first page also looks for new tasks, and for changes
// of the rows it does not follow, every few seconds.
import {api, query, streamEvents} from '../api.js';
import {append, clear, formatMs, formatTime, h, notice, statusBadge} from '../dom.js';
import {openServerNotice} from './signin.js';
import {initialUser, offerUsers, userPicker} from './users.js';

const statuses = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'timed_out', 'interrupted', 'max_turns',
                  'budget_exceeded'];
const pageSize = 25;
const refreshEvery = 3000;
// A browser opens at most six connections to one server over HTTP/1.1, and
// each followed stream holds one: rows past this many are updated by the
// periodic refresh instead, so the rest of the page keeps its connections.
const maxStreams = 3;

export async function showTasks(ctx) {
  const state = {
    user: initialUser(ctx, {allowAll: true}),
    status: ctx.query.status || '',
    cursors: [''],  // the cursor of each page seen; the last is the current page's
    watched: new Map(),  // task id -> AbortController of its event stream
  };
  const table = h('div', {id: 'task-table'});
  const pager = h('div', {class: 'pager'});
  const statusSelect = h('select', {id: 'status', onchange: () => {
                                      state.status = statusSelect.value;
                                      state.cursors = [''];
                                      load();
                                    }},
                         h('option', {value: ''}, 'any status'),
                         statuses.map((s) => h('option', {value: s, selected: s === state.status}, s.replace('_', ' '))));
  const filters = h('div', {class: 'filters'},
                    userPicker(ctx, state.user, (u) => {
                      state.user = u;
                      state.cursors = [''];
                      load();
                    }, {allowAll: true}),
                    h('label', {class: 'inline'}, 'Status ', statusSelect));
  append(ctx.main, h('h1', {}, 'Tasks'), ctx.me.auth === 'open' ? openServerNotice() : null, filters, table, pager);

  const stopWatching = () => {
    for (const c of state.watched.values()) c.abort();
    state.watched.clear();
  };
  ctx.signal.addEventListener('abort', stopWatching);

  async function load({quiet = false} = {}) {
    const before = state.cursors[state.cursors.length - 1];
    let page;
    try {
      page = await api(`/tasks${query({userId: state.user, status: state.status, limit: pageSize, before})}`,
                       {signal: ctx.signal});
    } catch (e) {
      if (ctx.signal.aborted) return;
      if (!quiet) append(clear(table), notice('error', 'The tasks could not be listed', e.message));
      return;
    }
    if (ctx.signal.aborted) return;
    render(page);
  }

  function render(page) {
    stopWatching();
    clear(table);
    clear(pager);
    if (!page.tasks.length) {
      append(table, notice('empty', 'No tasks here yet',
                          state.status || state.user ? 'Try another status or user. ' : '',
                          'Post one with POST /task (see docs/API_EXAMPLES.md); it shows up here while it runs.'));
    } else {
      const body = h('tbody', {});
      for (const task of page.tasks) append(body, row(task));
      offerUsers(page.tasks.map((t) => t.userId));
      append(table, h('table', {class: 'list'},
                     h('thead', {}, h('tr', {}, ['Created', 'Status', 'User', 'Task', 'Turns', 'Tokens in / out',
                                                 'Duration'].map((t) => h('th', {scope: 'col'}, t)))),
                     body));
    }
    if (state.cursors.length > 1) {
      append(pager, h('button', {type: 'button', class: 'secondary', onclick: () => {
                                  state.cursors.pop();
                                  load();
                                }}, '← Newer'));
    }
    if (page.nextCursor) {
      append(pager, h('button', {type: 'button', class: 'secondary', onclick: () => {
                                  state.cursors.push(page.nextCursor);
                                  load();
                                }}, 'Older →'));
    }
  }

  function row(task) {
    const cells = {
      status: h('td', {}, statusBadge(task.status)),
      turns: h('td', {class: 'num'}, String(task.turns)),
      tokens: h('td', {class: 'num'}, tokens(task.usage.inputTokens, task.usage.outputTokens)),
      duration: h('td', {class: 'num'}, formatMs(task.durationMs)),
    };
    const tr = h('tr', {dataset: {taskId: task.taskId, status: task.status}},
                 h('td', {}, formatTime(task.createdAt)), cells.status, h('td', {}, task.userId),
                 h('td', {class: 'task-text'}, h('a', {href: `#/tasks/${encodeURIComponent(task.taskId)}`}, task.task)),
                 cells.turns, cells.tokens, cells.duration);
    if ((task.status === 'queued' || task.status === 'running') && state.watched.size < maxStreams) watch(task, tr, cells);
    return tr;
  }

  // Follows one live task's events and updates its row in place.
  function watch(task, tr, cells) {
    const controller = new AbortController();
    state.watched.set(task.taskId, controller);
    let input = 0, output = 0;
    const setStatus = (status) => {
      tr.dataset.status = status;
      append(clear(cells.status), statusBadge(status));
    };
    streamEvents(`/tasks/${encodeURIComponent(task.taskId)}/events`, (event) => {
      const d = event.data;
      if (event.event === 'status' && d.status) setStatus(d.status);
      if (event.event === 'llm_start') cells.turns.textContent = String(d.turn);
      if (event.event === 'llm_end' && d.usage) {
        input += d.usage.inputTokens || 0;
        output += d.usage.outputTokens || 0;
        append(clear(cells.tokens), tokens(input, output));
      }
      if (event.event === 'end') {
        if (d.status) setStatus(d.status);
        if (typeof d.turns === 'number') cells.turns.textContent = String(d.turns);
        if (d.durationMs !== undefined) cells.duration.textContent = formatMs(d.durationMs);
        if (d.usage) append(clear(cells.tokens), tokens(d.usage.inputTokens, d.usage.outputTokens));
      }
    }, controller.signal).catch(() => {});
  }

  await load();
  // New tasks appear on the first page; the rows already shown follow their streams.
  const timer = setInterval(() => {
    if (state.cursors.length === 1 && !document.hidden) refreshNew();
  }, refreshEvery);
  ctx.signal.addEventListener('abort', () => clearInterval(timer));

  async function refreshNew() {
    let page;
    try {
      page = await api(`/tasks${query({userId: state.user, status: state.status, limit: pageSize})}`,
                       {signal: ctx.signal});
    } catch {
      return;
    }
    if (ctx.signal.aborted) return;
    const shown = [...table.querySelectorAll('tr[data-task-id]')];
    const ids = shown.map((tr) => tr.dataset.taskId);
    const fresh = page.tasks.map((t) => t.taskId);
    // Re-render only when the set of rows changed, or a row the stream does not follow changed status.
    const same = ids.length === fresh.length && ids.every((id, i) => id === fresh[i]) &&
                 page.tasks.every((t, i) => state.watched.has(t.taskId) || shown[i].dataset.status === t.status);
    if (!same) render(page);
  }
}

function tokens(input, output) {
  return `${input.toLocaleString()} / ${output.toLocaleString()}`;
}
