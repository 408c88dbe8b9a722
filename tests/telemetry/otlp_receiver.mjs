// An OTLP/HTTP trace receiver for the tests. It decodes each export with the
// official OpenTelemetry protobuf definitions (opentelemetry-proto, as
// generated into @opentelemetry/otlp-transformer), or reads OTLP/JSON, and
// keeps every span in a plain shape the tests read from GET /spans:
// {traceId, spanId, parentSpanId, name, kind, attributes: {key: value},
//  events: [name], status: {code, message}, resource: {key: value}, encoding}.
//
// Usage: node otlp_receiver.mjs [--fail] [--slow-ms N]
//   --fail: answer every export with 503 (a collector that is down)
//   --slow-ms N: answer each export only after N ms (a slow collector)
// Prints {"port": N} once listening on 127.0.0.1.
import http from 'node:http';
import {createRequire} from 'node:module';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const args = process.argv.slice(2);
const failing = args.includes('--fail');
const slowAt = args.indexOf('--slow-ms');
const slowMs = slowAt >= 0 ? Number(args[slowAt + 1]) : 0;

const spans = [];
let exports = 0;
let rejected = 0;

const hex = (bytes) => Buffer.from(bytes ?? []).toString('hex');

// AnyValue, decoded or JSON: the one member that is set.
function valueOf(v) {
  if (!v) return null;
  if (v.stringValue !== undefined && v.stringValue !== null) return v.stringValue;
  if (v.boolValue !== undefined && v.boolValue !== null) return v.boolValue;
  if (v.intValue !== undefined && v.intValue !== null) return Number(v.intValue);
  if (v.doubleValue !== undefined && v.doubleValue !== null) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return null;
}

function attributes(list) {
  const out = {};
  for (const kv of list ?? []) out[kv.key] = valueOf(kv.value);
  return out;
}

function collect(request, encoding) {
  for (const rs of request.resourceSpans ?? []) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const id = (v) => (encoding === 'json' ? v ?? '' : hex(v));
        spans.push({
          traceId: id(s.traceId),
          spanId: id(s.spanId),
          parentSpanId: id(s.parentSpanId),
          traceState: s.traceState ?? '',
          name: s.name,
          kind: s.kind,
          start: String(s.startTimeUnixNano),
          end: String(s.endTimeUnixNano),
          attributes: attributes(s.attributes),
          events: (s.events ?? []).map((e) => e.name),
          status: {code: s.status?.code ?? 0, message: s.status?.message ?? ''},
          flags: s.flags ?? 0,
          scope: ss.scope?.name ?? '',
          resource,
          encoding,
        });
      }
    }
  }
}

function answer(res, status, body, type = 'application/json') {
  res.writeHead(status, {'Content-Type': type});
  res.end(body);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.method === 'GET' && req.url === '/spans') {
      return answer(res, 200, JSON.stringify({spans, exports, rejected}));
    }
    if (req.method !== 'POST' || req.url !== '/v1/traces') return answer(res, 404, '{}');
    exports += 1;
    const respond = () => {
      if (failing) {
        rejected += 1;
        return answer(res, 503, '{"error":"down"}');
      }
      try {
        if ((req.headers['content-type'] ?? '').startsWith('application/json')) {
          collect(JSON.parse(body.toString('utf8')), 'json');
        } else {
          // The definitions decode strictly: a malformed message throws.
          const decoded = Request.decode(body);
          collect(Request.toObject(decoded, {longs: String, enums: Number, bytes: Array, defaults: false}), 'protobuf');
        }
      } catch (e) {
        rejected += 1;
        process.stderr.write(`undecodable export: ${e.message}\n`);
        return answer(res, 400, JSON.stringify({error: e.message}));
      }
      if ((req.headers['content-type'] ?? '').startsWith('application/json')) return answer(res, 200, '{}');
      return answer(res, 200, Buffer.alloc(0), 'application/x-protobuf');
    };
    if (slowMs > 0) setTimeout(respond, slowMs);
    else respond();
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({port: server.address().port}) + '\n');
});
