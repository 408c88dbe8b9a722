// Connections: the user's own accounts at user-scoped remote MCP servers that
// use OAuth (GET /connections). Connect starts an authorization
// (POST /connections/{server}) and opens its link in a new tab; Disconnect
// forgets and revokes the user's tokens (DELETE). While a link is open the
// list looks again every few seconds, so it says "connected" once the person
// approved in the other tab.
import {api, query} from '../api.js';
import {append, clear, formatTime, h, notice, statusBadge} from '../dom.js';
import {initialUser, userPicker} from './users.js';

const refreshEvery = 3000;

// Only an http(s) URL becomes a link or a window: never javascript:, data: or the like.
export function safeUrl(url) {
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : '';
}

export function authorizationLink(url, text = 'Open the authorization page') {
  const safe = safeUrl(url);
  return safe ? h('a', {href: safe, target: '_blank', rel: 'noopener noreferrer', class: 'authorize'}, text) : null;
}

// POST /connections/{server} for `user`; a link it starts opens in a new tab.
// Returns the connection (its state, and authorizationUrl while a link is open).
export async function connect(user, server) {
  const entry = await api(`/connections/${encodeURIComponent(server)}${query({userId: user})}`, {method: 'POST'});
  const url = entry.state === 'needs_authorization' ? safeUrl(entry.authorizationUrl) : '';
  if (url) window.open(url, '_blank', 'noopener');
  return entry;
}

// A "Connect" button and, once clicked, what came of it (the link, or why not), for the task page.
export function connectControl(user, server) {
  const outcome = h('span', {class: 'connect-outcome'});
  const button = h('button', {type: 'button', onclick: async () => {
                                button.disabled = true;
                                clear(outcome);
                                try {
                                  const entry = await connect(user, server);
                                  if (entry.state === 'connected') append(outcome, ` ${server} is connected now.`);
                                  else if (entry.state === 'error') append(outcome, h('span', {class: 'error-text'}, ` ${entry.error || 'failed'}`));
                                  else append(outcome, ' ', authorizationLink(entry.authorizationUrl) || 'No link came back; try again.');
                                } catch (e) {
                                  append(outcome, h('span', {class: 'error-text'}, ` Not started: ${e.message}`));
                                }
                                button.disabled = false;
                              }}, 'Connect');
  return h('span', {class: 'connect'}, button, outcome);
}

export async function showConnections(ctx) {
  let current = initialUser(ctx, {allowAll: false});
  let shown = '';  // the last answer rendered, to re-render only on a change
  let timer = 0;
  let request = 0;  // the newest list request; older answers are dropped
  const list = h('div', {id: 'connection-list'});
  append(ctx.main, h('h1', {}, 'Connections'),
                  h('p', {class: 'muted'}, 'Your own accounts at MCP servers where each user signs in as themselves (OAuth): ',
                    'code calls such a server as you once you have connected your account.'),
                  h('div', {class: 'filters'}, userPicker(ctx, current, (u) => {
                    current = u;
                    load();
                  })),
                  list);
  ctx.signal.addEventListener('abort', () => clearTimeout(timer));

  async function load({quiet = false} = {}) {
    clearTimeout(timer);
    if (!current) {
      ++request;
      shown = '';
      append(clear(list), notice('empty', 'Name a user', 'Connections belong to a user: type a user id above.'));
      return;
    }
    const user = current;
    const mine = ++request;
    let answer;
    try {
      answer = await api(`/connections${query({userId: user})}`, {signal: ctx.signal});
    } catch (e) {
      if (ctx.signal.aborted || mine !== request) return;
      if (!quiet) append(clear(list), notice('error', 'The connections could not be listed', e.message));
      schedule(quiet);
      return;
    }
    if (ctx.signal.aborted || mine !== request) return;
    const text = JSON.stringify(answer);
    if (!quiet || text !== shown) render(answer);
    shown = text;
    schedule(answer.connections.some((c) => c.authorizationUrl));
  }

  // Looks again while a link is open: the person may be approving in another tab.
  function schedule(waiting) {
    if (!waiting || ctx.signal.aborted) return;
    timer = setTimeout(() => {
      if (document.hidden) schedule(true);
      else load({quiet: true});
    }, refreshEvery);
  }

  function render(answer) {
    clear(list);
    if (!answer.connections.length) {
      append(list, notice('empty', 'Nothing to connect',
                          'No user-scoped MCP server with OAuth is configured on this server, so there is no account to connect. ',
                          'An operator adds one to mcpServers with "scope": "user" and a "url" (see servers/README.md).'));
      return;
    }
    append(list, h('h2', {}, `Connections of ${answer.userId}`),
                h('table', {class: 'list connections'},
                  h('thead', {}, h('tr', {}, ['Server', 'State', 'Details', ''].map((t) => h('th', {scope: 'col'}, t)))),
                  h('tbody', {}, answer.connections.map((c) => row(answer.userId, c)))));
  }

  function row(user, c) {
    const message = h('span', {class: 'row-message'});
    const fail = (what, e) => append(clear(message), h('span', {class: 'error-text'}, `${what}: ${e.message}`));
    const connectButton = (label) => h('button', {type: 'button', onclick: async (e) => {
                                                    e.target.disabled = true;
                                                    try {
                                                      await connect(user, c.server);
                                                      await load();
                                                    } catch (err) {
                                                      fail('Not started', err);
                                                      e.target.disabled = false;
                                                    }
                                                  }}, label);
    let details = null, action = null;
    if (c.state === 'connected') {
      details = [c.scopes ? h('div', {}, 'Scopes: ', h('code', {}, [].concat(c.scopes).join(' '))) : null,
                 c.expiresAt ? h('div', {class: 'muted'}, `Token valid until ${formatTime(c.expiresAt)} (renewed by itself)`) : null];
      action = h('button', {type: 'button', class: 'danger', onclick: async (e) => {
                              if (!confirm(`Disconnect ${c.server} for ${user}? Its tokens are revoked, and code cannot call it as ` +
                                           `${user} until the account is connected again.`)) return;
                              e.target.disabled = true;
                              try {
                                await api(`/connections/${encodeURIComponent(c.server)}${query({userId: user})}`, {method: 'DELETE'});
                                await load();
                              } catch (err) {
                                fail('Not disconnected', err);
                                e.target.disabled = false;
                              }
                            }}, 'Disconnect');
    } else if (c.state === 'needs_authorization') {
      const link = authorizationLink(c.authorizationUrl);
      details = link ? [h('div', {}, link), c.expiresAt ? h('div', {class: 'muted'}, `The link works until ${formatTime(c.expiresAt)}`) : null]
                     : h('span', {class: 'muted'}, 'Not connected yet.');
      action = connectButton('Connect');
    } else {
      details = h('span', {class: 'error-text'}, c.error || 'The authorization failed.');
      action = connectButton('Try again');
    }
    return h('tr', {dataset: {server: c.server, state: c.state}}, h('td', {}, h('code', {}, c.server)),
             h('td', {}, statusBadge(String(c.state))), h('td', {}, details, message), h('td', {}, action));
  }

  await load();
}
