'use strict';
// The example skills inside the real runtime (sandbox/runtime/runtime.js as a
// child process): sent in `init` the way the host sends them
// ("examples/<name>/<file>" under root "skills"), required by agent code, and
// a skill the code saves comes back in `done`.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { RuntimeClient } = require('../../../sandbox/runtime/test/runtime_client');

const examples = path.join(__dirname, '..', '..', '..', 'skills', 'examples');

function exampleFiles() {
  const files = [];
  for (const name of fs.readdirSync(examples)) {
    for (const file of fs.readdirSync(path.join(examples, name))) {
      const content = fs.readFileSync(path.join(examples, name, file)).toString('base64');
      files.push({ root: 'skills', path: `examples/${name}/${file}`, content, encoding: 'base64' });
    }
  }
  return files;
}

test('agent code requires the shipped examples and saves a skill of its own', async () => {
  const rt = new RuntimeClient();
  try {
    await rt.ready();
    rt.init({ files: exampleFiles() });
    // In a container the folder is /skills; here it is a temporary stand-in.
    const dir = JSON.stringify(rt.skills);
    const summary = await rt.exec(
      `const dp = require(${dir} + '/examples/data-processor');\n` +
        `const rows = Array.from({ length: 1000 }, (_, i) => ({ region: ['EU', 'US'][i % 2], amount: i }));\n` +
        `return dp.aggregate(rows, { groupBy: 'region', metrics: { n: 'count', total: ['sum', 'amount'] }, sort: 'key' });`,
    );
    assert.equal(summary.ok, true, JSON.stringify(summary.error));
    assert.deepEqual(summary.value, {
      records: 1000,
      matched: 1000,
      groups: [
        { key: 'EU', n: 500, total: 249500 },
        { key: 'US', n: 500, total: 250000 },
      ],
      omittedGroups: 0,
    });
    assert.deepEqual(summary.files, []); // requiring changes nothing

    const template = await rt.exec(`return require(${dir} + '/examples/template-skill/index.js').run({ a: 1 });`);
    assert.deepEqual(template.value, { ok: true, skill: 'template-skill', received: ['a'] });

    const saved = await rt.exec(
      `await fs.mkdir(${dir} + '/word-count', { recursive: true });\n` +
        `await fs.writeFile(${dir} + '/word-count/SKILL.md', '---\\nname: word-count\\ndescription: Counts words.\\n---\\n');\n` +
        `await fs.writeFile(${dir} + '/word-count/index.js', 'module.exports = (t) => t.split(/\\\\s+/).filter(Boolean).length;\\n');\n` +
        `return require(${dir} + '/word-count')('a b  c');`,
    );
    assert.equal(saved.ok, true, JSON.stringify(saved.error));
    assert.equal(saved.value, 3);
    const paths = saved.files.map((f) => `${f.root}:${f.op}:${f.path}`).sort();
    assert.deepEqual(paths, ['skills:write:word-count/SKILL.md', 'skills:write:word-count/index.js']);
  } finally {
    rt.close();
  }
});
