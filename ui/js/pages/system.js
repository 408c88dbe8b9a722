// Sandboxes and health: the pool, the engine, the MCP servers and the other
// components from GET /health, and charts drawn from GET /metrics (both
// show their details to an admin key only).
import {api, ApiError} from '../api.js';
import {barChart, lineChart} from '../charts.js';
import {append, clear, formatMs, h, notice} from '../dom.js';
import {byLabel, parseMetrics, rates, sum} from '../metrics.js';

const every = 5000;
const keep = 60;

export async function showSystem(ctx) {
  const summary = h('section', {id: 'health'});
  const charts = h('section', {id: 'charts'});
  append(ctx.main, h('h1', {}, 'Sandboxes & health'), summary, h('h2', {}, 'Activity'), charts);
  const history = {rate: [], exec: []};
  let previous = null;

  const tick = async () => {
    const health = await api('/health', {signal: ctx.signal, accept: [503]});
    if (ctx.signal.aborted) return;
    renderHealth(summary, health, ctx.me);
    if (!ctx.me.admin) {
      append(clear(charts), notice('empty', 'Charts need an admin key', 'GET /metrics is an operator route.'));
      return;
    }
    let text;
    try {
      text = await (await api('/metrics', {raw: true, signal: ctx.signal})).text();
    } catch (e) {
      if (ctx.signal.aborted) return;
      if (e instanceof ApiError) append(clear(charts), notice('error', 'No metrics', e.message));
      return;
    }
    const now = {at: performance.now(), samples: parseMetrics(text)};
    if (previous) {
      const r = rates(previous.samples, now.samples, (now.at - previous.at) / 1000);
      history.rate.push(r.requestsPerSecond);
      history.exec.push(r.execMs);
      for (const k of Object.keys(history)) if (history[k].length > keep) history[k].shift();
    }
    previous = now;
    const outcomes = byLabel(now.samples, 'harness_tasks_total', 'status');
    const execs = sum(now.samples, 'harness_sandbox_exec_duration_seconds_count');
    const execMean = execs ? (sum(now.samples, 'harness_sandbox_exec_duration_seconds_sum') / execs) * 1000 : null;
    append(clear(charts), h('div', {class: 'charts'},
                           lineChart(history.rate, {label: 'Requests per second', unit: '/s'}),
                           lineChart(history.exec, {label: 'Sandbox exec, mean', unit: ' ms',
                                                    note: execMean === null ? 'no block has run yet'
                                                                            : `${execs} blocks since start, mean ${formatMs(execMean)}`}),
                           barChart(outcomes, {label: 'Task outcomes since start'})),
                         h('p', {class: 'muted'}, `Read from /metrics every ${every / 1000} s while this page is open.`));
  };
  await tick();
  const timer = setInterval(() => tick().catch(() => {}), every);
  ctx.signal.addEventListener('abort', () => clearInterval(timer));
}

function renderHealth(section, health, me) {
  clear(section);
  append(section, h('p', {}, h('span', {class: `badge status-${health.status}`}, health.status),
                   ` version ${health.version} · up ${formatMs(health.uptimeSeconds * 1000)} · auth ${health.auth}`));
  const components = Object.entries(health.components || {});
  const byName = Object.fromEntries(components);
  if (byName.pool || byName.sandbox) append(section, poolCard(byName.pool || {}, byName.sandbox || {}));
  append(section, h('table', {class: 'list'},
                   h('thead', {}, h('tr', {}, ['Component', 'Status', 'Required', 'Details'].map((t) => h('th', {scope: 'col'}, t)))),
                   h('tbody', {}, components.map(([name, c]) => h(
                                      'tr', {dataset: {component: name}}, h('td', {}, h('code', {}, name)),
                                      h('td', {}, h('span', {class: `badge status-${c.status}`}, c.status)),
                                      h('td', {}, c.required ? 'yes' : 'no'), h('td', {}, details(c)))))));
  if (!me.admin) append(section, h('p', {class: 'muted'}, 'Details (pool, engine, servers) show to an admin key.'));
}

// The pool's numbers and the engine, when /health gives them (an admin key,
// or an open server); else only their status.
function poolCard(pool, sandbox) {
  const items = [['target', pool.target], ['ready', pool.ready], ['starting', pool.starting],
                 ['warm claims', pool.warmClaims], ['cold claims', pool.coldClaims], ['failed starts', pool.failedStarts],
                 ['died before ready', pool.diedBeforeReady]]
                    .filter(([, v]) => v !== undefined);
  const engine = sandbox.engine;
  return h('div', {class: 'pool', id: 'pool'}, h('h2', {}, 'Sandbox pool'),
           items.length ? h('dl', {class: 'stats'}, items.map(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))]))
                        : h('p', {class: 'muted'}, `pool ${pool.status || 'unknown'}`),
           engine ? h('p', {class: 'muted'}, `engine: Docker ${engine.version || '?'} (API ${engine.api_version || '?'}) at `,
                      h('code', {}, engine.endpoint || '?'), engine.reachable ? '' : ' — not reachable')
                  : null,
           sandbox.image ? h('p', {class: 'muted'}, 'image: ', h('code', {}, sandbox.image.name || describe(sandbox.image)),
                                   sandbox.image.present === false ? ' — missing' : '') : null,
           sandbox.runtime ? runtimeLine(sandbox.runtime) : null);
}

// runc, or gVisor with its platform; a runtime the engine lacks says so.
function runtimeLine(runtime) {
  const name = String(runtime.name || '?');
  const kind = runtime.gvisor ? ` (gVisor, platform ${runtime.platform || 'default'})` : '';
  const state = runtime.registered === false ? ' — not registered with the engine'
              : runtime.registered == null ? ' — not checked yet' : '';
  return h('p', {class: 'muted', id: 'runtime'}, 'runtime: ', h('code', {}, name), kind, state);
}

function describe(v) {
  if (typeof v !== 'object' || v === null) return String(v);
  return Object.entries(v).map(([k, x]) => `${k} ${typeof x === 'object' ? JSON.stringify(x) : x}`).join(' · ');
}

function details(c) {
  const rest = Object.entries(c).filter(([k]) => k !== 'status' && k !== 'required');
  if (!rest.length) return h('span', {class: 'muted'}, '–');
  const text = h('code', {class: 'details'}, rest.map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`).join(' · '));
  // A remote MCP server waiting for OAuth approval: the operator opens its URL
  // (built by the harness from the authorization server's endpoint, http(s) only).
  const url = c.oauth && c.oauth.authorizationUrl;
  if (typeof url !== 'string' || !/^https?:\/\//.test(url)) return text;
  return [h('p', {}, h('a', {href: url, target: '_blank', rel: 'noopener noreferrer', class: 'authorize'},
                       'Authorize access in the browser')), text];
}
