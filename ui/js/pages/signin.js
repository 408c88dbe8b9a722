// The sign-in page: an API key, checked with GET /me, kept in sessionStorage
// (gone when the tab closes). A server running open says so instead.
import {append, clear, h, notice} from '../dom.js';

export function showSignIn(ctx, message, submit) {
  const error = h('p', {id: 'signin-error', class: 'error-text', role: 'alert'}, message || '');
  const input = h('input', {id: 'key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true,
                            placeholder: 'mh_…', 'aria-describedby': 'key-help signin-error'});
  const button = h('button', {type: 'submit'}, 'Sign in');
  const form = h('form', {class: 'signin', onsubmit: async (event) => {
                   event.preventDefault();
                   button.disabled = true;
                   error.textContent = '';
                   const problem = await submit(input.value.trim());
                   button.disabled = false;
                   if (problem) {
                     error.textContent = problem;
                     input.select();
                   }
                 }},
                 h('h1', {}, 'Sign in'), h('label', {for: 'key'}, 'API key'), input,
                 h('p', {id: 'key-help', class: 'muted'}, 'Make one with ', h('code', {}, 'mcp-harness keys add --user <name>'),
                   ' (or ', h('code', {}, '--admin'), ' to see every user). The key stays in this tab only.'),
                 button, error);
  append(clear(ctx.main), form);
  input.focus();
}

// Shown by app.js when GET /me says the server needs no key.
export function openServerNotice() {
  return notice('warn', 'This server runs open',
                'No API key is needed: it listens on a loopback address and has no keys yet, so any process on this ' +
                    'machine can act as any user. Make a key (mcp-harness keys add) to turn keys on.');
}
