'use strict';
// Turns what agent code returned or threw into protocol values.

// Returns null when `value` survives JSON unchanged in meaning, else a message
// naming the first offending path ("value.rows[3].when is a function").
function jsonProblem(value, path = 'value', seen = new Set()) {
  const t = typeof value;
  if (value === null || t === 'string' || t === 'boolean') return null;
  if (t === 'number') return Number.isFinite(value) ? null : `${path} is ${value} (JSON has no such number)`;
  if (t === 'undefined') return `${path} is undefined`;
  if (t === 'function' || t === 'symbol' || t === 'bigint') return `${path} is a ${t}`;
  if (typeof value.toJSON === 'function') return null; // Date, Buffer, URL...
  if (seen.has(value)) return `${path} is circular`;
  const tag = Object.prototype.toString.call(value);
  if (tag === '[object Map]') return `${path} is a Map; return Object.fromEntries(map) instead`;
  if (tag === '[object Set]') return `${path} is a Set; return [...set] instead`;
  if (tag === '[object Promise]') return `${path} is a Promise; await it first`;
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (v === undefined || typeof v === 'function') continue; // JSON writes null, as everyone expects
      const p = jsonProblem(v, `${path}[${i}]`, seen);
      if (p) return p;
    }
  } else {
    for (const key of Object.keys(value)) {
      const v = value[key];
      if (v === undefined) continue; // dropped by JSON, as everyone expects
      const p = jsonProblem(v, `${path}.${key}`, seen);
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
    if (err.data !== undefined) out.data = err.data;
    return out;
  }
  return { name: 'Error', message: `non-Error value thrown: ${String(err)}` };
}

module.exports = { jsonProblem, describeError };
