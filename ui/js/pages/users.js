// Which user a page shows: a user key's own (a picker when it has several),
// anyone for an admin key or an open server (a text field that suggests the
// users seen in the task list).
import {h} from '../dom.js';

const lastUser = 'mcp-harness.user';

// The user to show first: ?userId=, the last one chosen, the key's first user.
export function initialUser(ctx, {allowAll}) {
  const me = ctx.me;
  if (ctx.query.userId !== undefined) return ctx.query.userId;
  if (!me.admin) return me.users[0] || '';
  if (allowAll) return '';
  return sessionStorage.getItem(lastUser) || me.users[0] || '';
}

// A picker bound to onChange(user). `allowAll`: '' means every user.
export function userPicker(ctx, current, onChange, {allowAll = false} = {}) {
  const me = ctx.me;
  const remember = (value) => {
    if (value) sessionStorage.setItem(lastUser, value);
    onChange(value);
  };
  if (!me.admin) {
    if (me.users.length <= 1) return h('span', {class: 'muted'}, `user ${me.users[0] || ''}`);
    const select = h('select', {id: 'user', onchange: () => remember(select.value)},
                     me.users.map((u) => h('option', {value: u, selected: u === current}, u)));
    return h('label', {class: 'inline'}, 'User ', select);
  }
  const listId = 'known-users';
  const input = h('input', {id: 'user', list: listId, value: current, size: 16,
                            placeholder: allowAll ? 'every user' : 'user id', autocomplete: 'off'});
  const form = h('form', {class: 'inline', onsubmit: (e) => {
                   e.preventDefault();
                   remember(input.value.trim());
                 }},
                 h('label', {for: 'user'}, 'User '), input,
                 h('datalist', {id: listId}, me.users.map((u) => h('option', {value: u}))),
                 h('button', {type: 'submit', class: 'secondary'}, 'Show'));
  return form;
}

// Offers `users` in the picker's suggestions (an admin's picker only).
export function offerUsers(users) {
  const list = document.getElementById('known-users');
  if (!list) return;
  const have = new Set([...list.options].map((o) => o.value));
  for (const u of users) {
    if (!have.has(u)) list.append(h('option', {value: u}));
    have.add(u);
  }
}
