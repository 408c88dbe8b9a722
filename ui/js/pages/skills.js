// Skills: a user's skills and the shipped examples; a skill's SKILL.md
// rendered, its files in a code view, and delete for the user's own.
import {api, query} from '../api.js';
import {append, clear, formatBytes, formatTime, h, notice} from '../dom.js';
import {codeBlock} from '../highlight.js';
import {renderMarkdown} from '../markdown.js';
import {initialUser, userPicker} from './users.js';

const codeFile = /\.(m?js|cjs|ts|json)$/;

export async function showSkills(ctx, user, name) {
  if (user && name) return showSkill(ctx, user, name);
  let current = initialUser(ctx, {allowAll: false});
  const list = h('div', {id: 'skill-list'});
  append(ctx.main, h('h1', {}, 'Skills'),
                  h('p', {class: 'muted'}, 'Code the agent saved in /skills for later tasks, and the examples every user gets.'),
                  h('div', {class: 'filters'}, userPicker(ctx, current, (u) => {
                    current = u;
                    load();
                  })),
                  list);
  async function load() {
    if (!current) {
      append(clear(list), notice('empty', 'Name a user', 'Skills belong to a user: type a user id above.'));
      return;
    }
    let answer;
    try {
      answer = await api(`/skills${query({userId: current})}`, {signal: ctx.signal});
    } catch (e) {
      if (!ctx.signal.aborted) append(clear(list), notice('error', 'The skills could not be listed', e.message));
      return;
    }
    const own = answer.skills.filter((s) => s.owner === 'user');
    const examples = answer.skills.filter((s) => s.owner !== 'user');
    append(clear(list), 
        h('h2', {}, `Skills of ${answer.userId}`),
        own.length ? cards(own, answer.userId)
                   : notice('empty', 'No skills yet',
                            'A task saves one by writing /skills/<name>/SKILL.md and its code; see docs/SKILLS.md.'),
        h('h2', {}, 'Shipped examples'), examples.length ? cards(examples, answer.userId) : h('p', {class: 'muted'}, 'None.'));
  }
  await load();
}

function cards(skills, user) {
  return h('ul', {class: 'cards'}, skills.map((s) => h(
                                                   'li', {class: 'card'},
                                                   h('a', {href: `#/skills/${encodeURIComponent(user)}/${encodeURIComponent(s.name)}`},
                                                     h('strong', {}, s.name)),
                                                   h('p', {}, s.description || ''),
                                                   s.problem ? h('p', {class: 'error-text'}, s.problem) : null,
                                                   h('p', {class: 'muted'}, `${s.files.length} files · ${formatTime(s.updated)}`))));
}

async function showSkill(ctx, user, name) {
  const base = `/skills/${encodeURIComponent(user)}/${encodeURIComponent(name)}`;
  const skill = await api(base, {signal: ctx.signal});
  const viewer = h('section', {id: 'file-view'});
  const fileList = h('ul', {class: 'files'}, skill.files.map((f) => h(
                                                 'li', {}, h('button', {type: 'button', class: 'link', onclick: () => showFile(f.path)}, f.path),
                                                 ' ', h('span', {class: 'muted'}, formatBytes(f.size)))));
  const remove = skill.owner === 'user'
                     ? h('button', {type: 'button', class: 'danger', onclick: async () => {
                                      if (!confirm(`Delete the skill ${name} of ${user}? Its files are removed for good.`)) return;
                                      try {
                                        await api(base, {method: 'DELETE'});
                                        location.hash = `#/skills?userId=${encodeURIComponent(user)}`;
                                      } catch (e) {
                                        append(ctx.main, notice('error', 'Not deleted', e.message));
                                      }
                                    }}, 'Delete skill')
                     : h('p', {class: 'muted'}, 'A shipped example: read-only.');
  append(ctx.main, h('p', {}, h('a', {href: `#/skills?userId=${encodeURIComponent(user)}`}, '← Skills')),
                  h('h1', {}, `Skill ${skill.name}`), h('p', {}, skill.description || ''),
                  skill.problem ? notice('error', 'This skill has a problem', skill.problem) : null, remove,
                  h('div', {class: 'split'},
                    h('section', {}, h('h2', {}, 'SKILL.md'),
                      skill.skillMd ? renderMarkdown(skill.skillMd) : h('p', {class: 'muted'}, 'No SKILL.md.')),
                    h('section', {}, h('h2', {}, 'Files'), fileList, viewer)));

  async function showFile(path) {
    append(clear(viewer), h('p', {class: 'muted'}, 'Loading…'));
    try {
      const response = await api(`${base}/files/${path.split('/').map(encodeURIComponent).join('/')}`, {raw: true});
      const text = await response.text();
      append(clear(viewer), h('h3', {}, path),
                           codeFile.test(path) ? codeBlock(text, {label: path}) : h('pre', {class: 'code'}, text));
    } catch (e) {
      append(clear(viewer), notice('error', `${path} could not be read`, e.message));
    }
  }
}
