// Tasks: newest first, filtered by status and user, paged by the API's
// cursor. Rows of queued and running tasks follow the task's own event stream
// (GET /tasks/{id}/events), so they change as the task does (the first few:
// see maxStreams); the first page also looks for new tasks, and for changes
// of the rows it does not follow, every few seconds.
import {api, query, streamEvents} from '../api.js';
import {append, clear, formatMs, formatTime, h, notice, statusBadge} from '../dom.js';
import {openServerNotice} from './signin.js';
import {initialUser, offerUsers, userPicker} from './users.js';

const statuses = ['queued', 'running', 'awaiting_approval', 'succeeded', 'failed', 'cancelled', 'timed_out', 'interrupted', 'max_turns',
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
    cursors: [''],       // the cursor of each page seen; the last is the current page's
    rows: new Map(),     // task id -> {tr, cells, stream?: AbortController} of the rows shown
    request: 0,          // the newest list request; older answers are dropped
  };
  const table = h('div', {id: 'task-table'});
  const pager = h('div', {class: 'pager'});
  const statusSelect = h('select', {id: 'status', onchange: () => {
                                      state.status = statusSelect.value;
                                      restart();
                                    }},
                         h('option', {value: ''}, 'any status'),
                         statuses.map((s) => h('option', {value: s, selected: s === state.status}, s.replace('_', ' '))));
  const filters = h('div', {class: 'filters'},
                    userPicker(ctx, state.user, (u) => {
                      state.user = u;
                      restart();
                    }, {allowAll: true}),
                    h('label', {class: 'inline'}, 'Status ', statusSelect));
  append(ctx.main, h('h1', {}, 'Tasks'), ctx.me.auth === 'open' ? openServerNotice() : null, filters, table, pager);

  const following = () => [...state.rows.values()].filter((r) => r.stream).length;
  const dropRows = (keep = new Set()) => {
    for (const [id, r] of state.rows) {
      if (keep.has(id)) continue;
      if (r.stream) r.stream.abort();
      state.rows.delete(id);
    }
  };
  ctx.signal.addEventListener('abort', () => dropRows());

  function restart() {
    state.cursors = [''];
    load();
  }

  // Lists the current page; `quiet` (the periodic refresh) keeps the page as
  // it is on a failure and re-renders only when something changed.
  async function load({quiet = false} = {}) {
    const mine = ++state.request;
    const before = state.cursors[state.cursors.length - 1];
    for (const b of pager.querySelectorAll('button')) b.disabled = true;
    let page;
    try {
      page = await api(`/tasks${query({userId: state.user, status: state.status, limit: pageSize, before})}`,
                       {signal: ctx.signal});
    } catch (e) {
      if (ctx.signal.aborted || mine !== state.request) return;
      if (!quiet) {
        dropRows();
        append(clear(table), notice('error', 'The tasks could not be listed', e.message));
      }
      renderPager(null);
      return;
    }
    if (ctx.signal.aborted || mine !== state.request) return;
    if (quiet && unchanged(page)) {
      renderPager(page);
      return;
    }
    render(page);
  }

  function unchanged(page) {
    const ids = [...state.rows.keys()];
    return ids.length === page.tasks.length &&
           page.tasks.every((t, i) => ids[i] === t.taskId &&
                                      (state.rows.get(t.taskId).stream || state.rows.get(t.taskId).tr.dataset.status === t.status));
  }

  function render(page) {
    // Rows that stay keep their element and their stream; the others are made anew.
    const keep = new Set(page.tasks.filter((t) => state.rows.get(t.taskId)?.stream).map((t) => t.taskId));
    dropRows(keep);
    clear(table);
    if (!page.tasks.length) {
      append(table, notice('empty', 'No tasks here yet',
                           state.status || state.user ? 'Try another status or user. ' : '',
                           'Post one with POST /task (see docs/API_EXAMPLES.md); it shows up here while it runs.'));
    } else {
      const body = h('tbody', {});
      const rows = new Map();
      for (const task of page.tasks) {
        const r = state.rows.get(task.taskId) || makeRow(task);
        rows.set(task.taskId, r);
        append(body, r.tr);
      }
      state.rows = rows;
      for (const task of page.tasks) {
        const r = rows.get(task.taskId);
        const live = task.status === 'queued' || task.status === 'running' || task.status === 'awaiting_approval';
        if (live && !r.stream && following() < maxStreams) follow(task.taskId, r);
      }
      offerUsers(page.tasks.map((t) => t.userId));
      append(table, h('table', {class: 'list'},
                      h('thead', {}, h('tr', {}, ['Created', 'Status', 'User', 'Task', 'Turns', 'Tokens in / out',
                                                  'Duration'].map((t) => h('th', {scope: 'col'}, t)))),
                      body));
    }
    renderPager(page);
  }

  function renderPager(page) {
    clear(pager);
    if (state.cursors.length > 1) {
      append(pager, h('button', {type: 'button', class: 'secondary', onclick: () => {
                                   state.cursors.pop();
                                   load();
                                 }}, '← Newer'));
    }
    if (page && page.nextCursor) {
      append(pager, h('button', {type: 'button', class: 'secondary', onclick: () => {
                                   state.cursors.push(page.nextCursor);
                                   load();
                                 }}, 'Older →'));
    }
  }

  function makeRow(task) {
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
    return {tr, cells, stream: null};
  }

  // Follows one live task's events and updates its row in place. When the
  // stream ends or fails, the row goes back to the periodic refresh.
  function follow(id, r) {
    const controller = new AbortController();
    r.stream = controller;
    let input = 0, output = 0;
    const setStatus = (status) => {
      r.tr.dataset.status = status;
      append(clear(r.cells.status), statusBadge(String(status)));
    };
    streamEvents(`/tasks/${encodeURIComponent(id)}/events`, (event) => {
      const d = event.data;
      if (event.event === 'status' && d.status) setStatus(d.status);
      if (event.event === 'llm_start') r.cells.turns.textContent = String(d.turn);
      if (event.event === 'llm_end' && d.usage) {
        input += d.usage.inputTokens || 0;
        output += d.usage.outputTokens || 0;
        append(clear(r.cells.tokens), tokens(input, output));
      }
      if (event.event === 'end') {
        if (d.status) setStatus(d.status);
        if (typeof d.turns === 'number') r.cells.turns.textContent = String(d.turns);
        if (d.durationMs !== undefined) r.cells.duration.textContent = formatMs(d.durationMs);
        if (d.usage) append(clear(r.cells.tokens), tokens(d.usage.inputTokens, d.usage.outputTokens));
      }
    }, controller.signal).catch(() => {}).finally(() => {
      if (r.stream === controller) r.stream = null;
    });
  }

  await load();
  if (ctx.signal.aborted) return;
  // New tasks appear on the first page; the rows already shown follow their streams.
  const timer = setInterval(() => {
    if (state.cursors.length === 1 && !document.hidden) load({quiet: true});
  }, refreshEvery);
  ctx.signal.addEventListener('abort', () => clearInterval(timer));
}

function tokens(input, output) {
  return `${(input ?? 0).toLocaleString()} / ${(output ?? 0).toLocaleString()}`;
}
