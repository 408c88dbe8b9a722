'use strict';
// Turns what agent code returned or threw into protocol values.

// How deep a value may nest in arrays and objects. The host refuses any frame
// nested deeper than 256 levels (core::max_json_depth) as a protocol error and
// discards the sandbox; a frame wraps a value in a level or two of its own.
// So the runtime refuses deeper values itself, with a message the code can act on.
const MAX_VALUE_DEPTH = 250;

// Returns null when `value` survives JSON unchanged in meaning, else a message
// naming the first offending path ("value.rows[3].when is a function").
function jsonProblem(value, path = 'value', seen = new Set(), depth = 0) {
  const t = typeof value;
  if (value === null || t === 'string' || t === 'boolean') return null;
  if (t === 'number') return Number.isFinite(value) ? null : `${path} is ${value} (JSON has no such number)`;
  if (t === 'undefined') return `${path} is undefined`;
  if (t === 'function' || t === 'symbol' || t === 'bigint') return `${path} is a ${t}`;
  if (typeof value.toJSON === 'function') return null; // Date, Buffer, URL...
  if (seen.has(value)) return `${path} is circular`;
  if (depth >= MAX_VALUE_DEPTH) return `${path} nests deeper than ${MAX_VALUE_DEPTH} levels of arrays and objects`;
  const tag = Object.prototype.toString.call(value);
  if (tag === '[object Map]') return `${path} is a Map; return Object.fromEntries(map) instead`;
  if (tag === '[object Set]') return `${path} is a Set; return [...set] instead`;
  if (tag === '[object Promise]') return `${path} is a Promise; await it first`;
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (v === undefined || typeof v === 'function') continue; // JSON writes null, as everyone expects
      const p = jsonProblem(v, `${path}[${i}]`, seen, depth + 1);
      if (p) return p;
    }
  } else {
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (v === undefined) continue; // dropped by JSON, as everyone expects
      const p = jsonProblem(v, `${path}.${key}`, seen, depth + 1);
      if (p) return p;
    }
  }
  seen.delete(value);
  return null;
}

// Keeps the first line and the frames in the agent's own code, so a stack
// shows the agent where its code failed and nothing of the runtime.
// Frames past `maxLine` are the runtime's wrapper around the code, so they go too.
function trimStack(stack, filename, maxLine) {
  if (typeof stack !== 'string') return undefined;
  const lines = stack.split('\n');
  const at = new RegExp(`${filename.replace('.', '\\.')}:(\\d+):`);
  const own = lines.slice(1).filter((l) => {
    const m = at.exec(l);
    return m && Number(m[1]) <= maxLine;
  });
  return [lines[0], ...own].join('\n');
}

// Errors can come from the agent's vm context (another realm), so no instanceof.
function describeError(err, filename, maxLine = Infinity) {
  if (err && typeof err === 'object' && 'message' in err) {
    const out = { name: String(err.name || 'Error'), message: String(err.message) };
    const stack = trimStack(err.stack, filename, maxLine);
    if (stack) out.stack = stack;
    if (err.code !== undefined) out.code = err.code;
    // Data nested past the limit would make the whole frame a protocol error.
    if (err.data !== undefined && !nestsTooDeep(err.data)) out.data = err.data;
    return out;
  }
  return { name: 'Error', message: `non-Error value thrown: ${String(err)}` };
}

// True when `value` nests deeper than MAX_VALUE_DEPTH. Cheaper than jsonProblem
// (no paths), for tool arguments on the call path.
function nestsTooDeep(value, depth = 0) {
  if (value === null || typeof value !== 'object') return false;
  if (depth >= MAX_VALUE_DEPTH) return true;
  if (typeof value.toJSON === 'function') return false;
  for (const key in value) {
    if (Object.prototype.hasOwnProperty.call(value, key) && nestsTooDeep(value[key], depth + 1)) return true;
  }
  return false;
}

module.exports = { jsonProblem, describeError, nestsTooDeep, MAX_VALUE_DEPTH };
