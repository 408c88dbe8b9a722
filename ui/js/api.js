// The public HTTP API, with the key the user signed in with. The dashboard
// uses nothing else, so it can do exactly what an API caller can.

const keyName = 'mcp-harness.key';

export const session = {
  key: sessionStorage.getItem(keyName) || '',
  me: null,  // GET /me: {auth, keyId, label, users, admin}
};

export function setKey(key) {
  session.key = key;
  if (key) sessionStorage.setItem(keyName, key);
  else sessionStorage.removeItem(keyName);
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function headers(extra = {}) {
  const out = {...extra};
  if (session.key) out.Authorization = `Bearer ${session.key}`;
  return out;
}

async function failure(response) {
  let code = '', message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || '';
      message = body.error.message || message;
    }
  } catch {
    // not JSON: the status line says enough
  }
  return new ApiError(response.status, code, message);
}

// JSON in, JSON out; an answer that is not 2xx (or listed in `accept`) throws
// ApiError with the API's message.
export async function api(path, {method = 'GET', body, signal, raw = false, accept = []} = {}) {
  const init = {method, headers: headers(), signal, cache: 'no-store'};
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (!response.ok && !accept.includes(response.status)) throw await failure(response);
  if (raw) return response;
  return response.json();
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const text = q.toString();
  return text ? `?${text}` : '';
}

// Server-Sent Events over fetch: EventSource cannot send the Authorization
// header. Calls onEvent({id, event, data}) for each event; resumes from the
// last id if the connection drops; returns when the server ends the stream
// (the task ended) or `signal` aborts.
export async function streamEvents(path, onEvent, signal) {
  let lastId = '';
  for (let attempt = 0; !signal.aborted; attempt++) {
    let reader = null;
    try {
      const h = headers({Accept: 'text/event-stream'});
      if (lastId) h['Last-Event-ID'] = lastId;
      const response = await fetch(path, {headers: h, signal, cache: 'no-store'});
      if (!response.ok) throw await failure(response);
      reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const {value, done} = await reader.read();
        if (done) return;
        attempt = 0;  // data came: the next drop retries quickly again
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = parseEvent(block);
          if (!event) continue;
          if (event.id) lastId = event.id;
          try {
            onEvent(event);
          } catch (e) {
            // A page's bug in one event must not end the stream or hold its connection.
            console.warn('event handler failed', e);
          }
        }
      }
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof ApiError && e.status < 500 && e.status !== 429) throw e;
      // A dropped connection, a busy server: try again shortly, from the last event seen.
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 500 * (attempt + 1))));
    } finally {
      // Frees the connection whatever ended the read (browsers keep about six per server).
      if (reader) reader.cancel().catch(() => {});
    }
  }
}

function parseEvent(block) {
  const event = {id: '', event: 'message', data: ''};
  let any = false;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;  // a keep-alive comment
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') event.id = value;
    else if (field === 'event') event.event = value;
    else if (field === 'data') event.data += (event.data ? '\n' : '') + value;
    else continue;
    any = true;
  }
  if (!any || !event.data) return null;
  try {
    event.data = JSON.parse(event.data);
  } catch {
    event.data = {text: event.data};
  }
  // Handlers read fields: anything but an object (null, a number) reads as empty.
  if (typeof event.data !== 'object' || event.data === null || Array.isArray(event.data)) event.data = {};
  return event;
}

// Saves a file the API serves (with the key) through a blob: URL the page makes.
export async function download(path, name) {
  const response = await api(path, {raw: true});
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
