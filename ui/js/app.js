// The dashboard's shell: sign-in, the page router (#/page/...), the header.
import {api, ApiError, session, setKey} from './api.js';
import {append, clear, h, notice} from './dom.js';
import {showConnections} from './pages/connections.js';
import {showSignIn} from './pages/signin.js';
import {showSkills} from './pages/skills.js';
import {showSystem} from './pages/system.js';
import {showTask} from './pages/task.js';
import {showTasks} from './pages/tasks.js';
import {showTools} from './pages/tools.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');

// Each page gets its own AbortController: leaving the page stops its streams and timers.
let pageAbort = new AbortController();

const routes = [
  [/^#\/tasks\/([^/]+)$/, (m, ctx) => showTask(ctx, decodeURIComponent(m[1]))],
  [/^#\/tasks\/?$/, (m, ctx) => showTasks(ctx)],
  [/^#\/skills(?:\/([^/]+)\/([^/]+))?\/?$/, (m, ctx) => showSkills(ctx, m[1] && decodeURIComponent(m[1]),
                                                                   m[2] && decodeURIComponent(m[2]))],
  [/^#\/tools(?:\/(.+))?$/, (m, ctx) => showTools(ctx, m[1] && decodeURIComponent(m[1]))],
  [/^#\/connections\/?$/, (m, ctx) => showConnections(ctx)],
  [/^#\/system\/?$/, (m, ctx) => showSystem(ctx)],
];

async function route() {
  pageAbort.abort();
  pageAbort = new AbortController();
  const ctx = {main, signal: pageAbort.signal, me: session.me, query: parseQuery()};
  if (!session.me) {
    await signIn(ctx);
    return;
  }
  const hash = location.hash.split('?')[0] || '#/tasks';
  for (const [pattern, show] of routes) {
    const m = pattern.exec(hash);
    if (!m) continue;
    markNav(hash);
    clear(main);
    // Keyboard and screen-reader users start at the new page, not on a link that is gone.
    main.focus({preventScroll: true});
    try {
      await show(m, ctx);
    } catch (e) {
      if (ctx.signal.aborted) return;
      if (e instanceof ApiError && e.status === 401) {
        signOut('The server no longer accepts this key. Sign in again.');
        return;
      }
      append(clear(main), notice('error', 'This page could not be loaded', e.message));
    }
    return;
  }
  location.hash = '#/tasks';
}

function parseQuery() {
  const q = location.hash.split('?')[1] || '';
  return Object.fromEntries(new URLSearchParams(q));
}

function markNav(hash) {
  for (const link of nav.querySelectorAll('a')) {
    const current = hash.startsWith(`#/${link.dataset.page}`);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

// Asks GET /me who the key is; without a key a server running open answers too.
async function signIn(ctx, message) {
  nav.hidden = true;
  clear(who);
  if (session.key || !message) {
    try {
      session.me = await api('/me');
      showWho();
      await route();
      return;
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 401) {
        append(clear(main), notice('error', 'The server did not answer', e.message,
                                  ' Check that mcp-harness is running, then reload this page.'));
        return;
      }
      if (session.key) message = `The server did not accept this key: ${e.message}`;
      setKey('');
    }
  }
  showSignIn(ctx, message, async (key) => {
    setKey(key);
    try {
      session.me = await api('/me');
    } catch (e) {
      setKey('');
      return e instanceof ApiError && e.status === 401 ? `The server did not accept this key: ${e.message}`
                                                       : `The server did not answer: ${e.message}`;
    }
    showWho();
    // A changed hash routes by itself (hashchange); an unchanged one must be routed here, once.
    if (location.hash !== '#/tasks') location.hash = '#/tasks';
    else await route();
    return '';
  });
}

function showWho() {
  const me = session.me;
  nav.hidden = false;
  clear(who);
  if (me.auth === 'open') {
    append(who, h('span', {class: 'badge warn', title: 'No API key is needed: anyone on this machine can act as any user'},
                 'open server'));
    return;
  }
  const users = me.admin ? 'admin' : me.users.join(', ');
  append(who, h('span', {class: 'muted'}, `${me.label || me.keyId} · ${users}`), ' ',
             h('button', {type: 'button', class: 'link', onclick: () => signOut('Signed out.')}, 'Sign out'));
}

function signOut(message) {
  setKey('');
  session.me = null;
  pageAbort.abort();
  signIn({main, signal: new AbortController().signal}, message);
}

window.addEventListener('hashchange', route);
route();
