'use strict';
// The shipped example skills, run as a sandbox would run them (plain require,
// no dependencies), plus the SKILL.md contract every example must keep.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const examples = path.join(__dirname, '..', '..', '..', 'skills', 'examples');
const dp = require(path.join(examples, 'data-processor'));
const template = require(path.join(examples, 'template-skill', 'index.js'));

function orders(n) {
  const regions = ['EU', 'US', 'APAC', 'LATAM'];
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push({
      id: `o${i}`,
      status: i % 5 === 0 ? 'refunded' : 'paid',
      amount: (i % 97) + 0.5,
      customer: { region: regions[i % regions.length], email: `c${i}@example.com` },
      note: i % 10 === 0 ? null : 'ok',
    });
  }
  return out;
}

test('every example has SKILL.md front matter naming its folder, and its code (index.js, or __init__.py in Python)', () => {
  for (const name of fs.readdirSync(examples)) {
    const md = fs.readFileSync(path.join(examples, name, 'SKILL.md'), 'utf8');
    const front = /^---\n([\s\S]*?)\n---\n/.exec(md);
    assert.ok(front, `${name}: no front matter`);
    assert.match(front[1], new RegExp(`^name: ${name}$`, 'm'));
    assert.match(front[1], /^description: \S.{10,}$/m);
    const code = ['index.js', '__init__.py'].filter((f) => fs.existsSync(path.join(examples, name, f)));
    assert.equal(code.length, 1, `${name}: needs index.js (JavaScript) or __init__.py (Python)`);
  }
});

test('aggregate: filter, group by a dotted field, metrics, sort and limit', () => {
  const records = orders(1000);
  const summary = dp.aggregate(records, {
    where: { status: 'paid' },
    groupBy: 'customer.region',
    metrics: { orders: 'count', revenue: ['sum', 'amount'], biggest: ['max', 'amount'] },
    sort: '-orders',
    limit: 3,
  });
  assert.equal(summary.records, 1000);
  assert.equal(summary.matched, 800);
  assert.equal(summary.groups.length, 3);
  assert.equal(summary.omittedGroups, 1);
  const paid = records.filter((r) => r.status === 'paid');
  for (const g of summary.groups) {
    const members = paid.filter((r) => r.customer.region === g.key);
    assert.equal(g.orders, members.length);
    assert.equal(g.revenue, Math.round(members.reduce((a, r) => a + r.amount, 0) * 100) / 100);
    assert.equal(g.biggest, Math.max(...members.map((r) => r.amount)));
  }
  const counts = summary.groups.map((g) => g.orders);
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a));
});

test('aggregate: the summary is a small fraction of the records it replaces', () => {
  const records = orders(1000);
  const summary = dp.aggregate(records, { groupBy: 'status', metrics: { n: 'count', avg: ['avg', 'amount'] } });
  const ratio = JSON.stringify(summary).length / JSON.stringify(records).length;
  assert.ok(ratio < 0.01, `summary is ${(ratio * 100).toFixed(2)}% of the records`);
});

test('aggregate without groupBy gives one group; operators and functions in where', () => {
  const records = orders(100);
  const s = dp.aggregate(records, { where: { amount: { gte: 50, lt: 60 }, 'customer.region': { in: ['EU', 'US'] } } });
  const expected = records.filter((r) => r.amount >= 50 && r.amount < 60 && ['EU', 'US'].includes(r.customer.region));
  assert.deepEqual(s.groups, [{ key: 'all', count: expected.length }]);
  assert.equal(dp.filter(records, (r) => r.id === 'o7').length, 1);
  assert.equal(dp.filter(records, { note: { exists: false } }).length, 10);
  assert.equal(dp.filter(records, { id: { contains: 'O9' } }).length, 11);
});

test('profile describes fields without returning the records', () => {
  const p = dp.profile(orders(200), { top: 2 });
  assert.equal(p.records, 200);
  assert.deepEqual(p.fields.status.types, { string: 200 });
  assert.equal(p.fields.status.distinct, 2);
  assert.deepEqual(p.fields.status.top[0], ['paid', 160]);
  assert.equal(p.fields.note.missing, 20);
  assert.equal(p.fields.amount.min, 0.5);
  assert.equal(p.fields.amount.max, 96.5);
  assert.equal(p.fields.id.top, undefined); // all distinct: no "top" noise
  assert.deepEqual(p.fields.customer.types, { object: 200 });
});

test('groupBy, sample and field', () => {
  const groups = dp.groupBy([{ a: 1 }, { a: 1 }, { b: 2 }], 'a');
  assert.deepEqual(Object.keys(groups).sort(), ['(none)', '1']);
  assert.deepEqual(dp.sample(orders(10), ['id', 'customer.region'], 2), [
    { id: 'o0', 'customer.region': 'EU' },
    { id: 'o1', 'customer.region': 'US' },
  ]);
  assert.equal(dp.field({ a: { b: null } }, 'a.b.c'), undefined);
});

test('bad input is a clear error', () => {
  assert.throws(() => dp.aggregate('nope'), /records must be an array/);
  assert.throws(() => dp.aggregate([{ a: 1 }], { metrics: { x: ['median', 'a'] } }), /unknown metric 'median'/);
  assert.throws(() => dp.filter([{ a: 1 }], { a: { like: 1 } }), /unknown condition 'like'/);
});

test('template-skill run() returns what it received', () => {
  assert.deepEqual(template.run({ b: 1, a: 2 }), { ok: true, skill: 'template-skill', received: ['a', 'b'] });
  assert.throws(() => template.run([1]), /plain object/);
});
