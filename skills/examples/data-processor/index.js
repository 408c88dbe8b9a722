'use strict';
// Token-efficient record processing: filter, group and aggregate an array of
// plain objects inside the sandbox and return a compact summary, so the model
// reads a few lines instead of thousands of records. CommonJS, no dependencies.

/** Reads a field by name or dotted path ("customer.region"); a function is called with the record. */
function field(record, key) {
  if (typeof key === 'function') return key(record);
  let value = record;
  for (const part of String(key).split('.')) {
    if (value === null || value === undefined) return undefined;
    value = value[part];
  }
  return value;
}

const tests = {
  eq: (v, x) => v === x,
  ne: (v, x) => v !== x,
  gt: (v, x) => v > x,
  gte: (v, x) => v >= x,
  lt: (v, x) => v < x,
  lte: (v, x) => v <= x,
  in: (v, x) => Array.isArray(x) && x.includes(v),
  contains: (v, x) => typeof v === 'string' && v.toLowerCase().includes(String(x).toLowerCase()),
  exists: (v, x) => (v !== undefined && v !== null) === Boolean(x),
};

/** True when `record` passes `where`: a function, or {field: value | {eq, ne, gt, gte, lt, lte, in, contains, exists}}. */
function matches(record, where) {
  if (!where) return true;
  if (typeof where === 'function') return Boolean(where(record));
  return Object.entries(where).every(([key, condition]) => {
    const value = field(record, key);
    if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) return value === condition;
    return Object.entries(condition).every(([op, operand]) => {
      if (!tests[op]) throw new Error(`unknown condition '${op}' on '${key}'; use one of ${Object.keys(tests).join(', ')}`);
      return tests[op](value, operand);
    });
  });
}

function filter(records, where) {
  return asArray(records).filter((r) => matches(r, where));
}

/** {groupKey: [records]}; a missing key groups under "(none)". */
function groupBy(records, key) {
  const groups = {};
  for (const r of asArray(records)) {
    const k = field(r, key);
    const name = k === undefined || k === null ? '(none)' : String(k);
    (groups[name] = groups[name] || []).push(r);
  }
  return groups;
}

const round = (x, decimals) => (Number.isFinite(x) ? Math.round(x * 10 ** decimals) / 10 ** decimals : x);

function numbers(rows, key) {
  return rows.map((r) => field(r, key)).filter((v) => typeof v === 'number' && Number.isFinite(v));
}

const reducers = {
  count: (rows) => rows.length,
  sum: (rows, key) => numbers(rows, key).reduce((a, b) => a + b, 0),
  avg: (rows, key) => {
    const xs = numbers(rows, key);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  },
  min: (rows, key) => {
    const xs = numbers(rows, key);
    return xs.length ? Math.min(...xs) : null;
  },
  max: (rows, key) => {
    const xs = numbers(rows, key);
    return xs.length ? Math.max(...xs) : null;
  },
  distinct: (rows, key) => new Set(rows.map((r) => JSON.stringify(field(r, key) ?? null))).size,
};

function metric(rows, spec, decimals) {
  if (typeof spec === 'function') return spec(rows);
  const [name, key] = Array.isArray(spec) ? spec : [spec];
  if (!reducers[name]) throw new Error(`unknown metric '${name}'; use one of ${Object.keys(reducers).join(', ')} or a function`);
  return round(reducers[name](rows, key), decimals);
}

/**
 * Filters, groups and aggregates; returns only the summary.
 * options: {where, groupBy, metrics: {name: 'count' | [op, field] | (rows) => value},
 *           sort: 'name' | '-name' (a metric or 'key'), limit (default 20), decimals (default 2)}
 * -> {records, matched, groups: [{key, ...metrics}], omittedGroups}
 */
function aggregate(records, options = {}) {
  const all = asArray(records);
  const { where, metrics = { count: 'count' }, sort, limit = 20, decimals = 2 } = options;
  const rows = all.filter((r) => matches(r, where));
  const grouped = options.groupBy === undefined ? { all: rows } : groupBy(rows, options.groupBy);
  let groups = Object.entries(grouped).map(([key, members]) => {
    const out = { key };
    for (const [name, spec] of Object.entries(metrics)) out[name] = metric(members, spec, decimals);
    return out;
  });
  if (sort) {
    const desc = sort.startsWith('-');
    const by = desc ? sort.slice(1) : sort;
    groups.sort((a, b) => (a[by] < b[by] ? -1 : a[by] > b[by] ? 1 : 0) * (desc ? -1 : 1));
  }
  const omittedGroups = Math.max(0, groups.length - limit);
  groups = groups.slice(0, limit);
  return { records: all.length, matched: rows.length, groups, omittedGroups };
}

/**
 * What the records look like, without the records: per field the types seen,
 * how many lack it, distinct values, numeric range and mean, and the most
 * common values. options: {top (default 3), decimals (default 2)}.
 */
function profile(records, options = {}) {
  const all = asArray(records);
  const { top = 3, decimals = 2 } = options;
  const names = new Set();
  for (const r of all) if (r && typeof r === 'object') Object.keys(r).forEach((k) => names.add(k));
  const fields = {};
  for (const name of names) {
    const values = all.map((r) => (r && typeof r === 'object' ? r[name] : undefined));
    const present = values.filter((v) => v !== undefined && v !== null);
    const types = {};
    for (const v of present) {
      const t = Array.isArray(v) ? 'array' : typeof v;
      types[t] = (types[t] || 0) + 1;
    }
    const counts = new Map();
    for (const v of present) {
      const k = typeof v === 'object' ? JSON.stringify(v) : v;
      counts.set(k, (counts.get(k) || 0) + 1);
    }
    const entry = { types, missing: all.length - present.length, distinct: counts.size };
    const xs = present.filter((v) => typeof v === 'number' && Number.isFinite(v));
    if (xs.length) {
      entry.min = Math.min(...xs);
      entry.max = Math.max(...xs);
      entry.mean = round(xs.reduce((a, b) => a + b, 0) / xs.length, decimals);
    }
    if (counts.size < present.length) {
      entry.top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
    }
    fields[name] = entry;
  }
  return { records: all.length, fields };
}

/** The first `n` records with only `keys` kept: a sample small enough to read. */
function sample(records, keys, n = 3) {
  return asArray(records)
    .slice(0, n)
    .map((r) => Object.fromEntries(keys.map((k) => [k, field(r, k)])));
}

function asArray(records) {
  if (!Array.isArray(records)) throw new TypeError('records must be an array of objects');
  return records;
}

module.exports = { field, matches, filter, groupBy, aggregate, profile, sample };
