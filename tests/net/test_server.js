// The HTTP peer of the net tests: plain HTTP, HTTPS, HTTPS with HTTP/2, or a
// forward proxy, on a loopback port it prints once listening.
//
//   node test_server.js [--tls cert.pem key.pem] [--h2] [--proxy]
//
// Routes: /echo (the request back as JSON), /status/<n>, /slow?ms=, /big?bytes=,
// /sse?events=&gap=, /flood?bytes=, /cut (a head, part of a body, then the
// connection is destroyed), /hang (never answers), /stats (requests seen and
// connections closed by the client before an answer).
'use strict';
const fs = require('fs');
const http = require('http');
const https = require('https');
const http2 = require('http2');

const args = process.argv.slice(2);
const tls = args.indexOf('--tls');
const h2 = args.includes('--h2');
const proxy = args.includes('--proxy');
const stats = { requests: 0, abandoned: 0, proxied: 0 };

function query(req) {
  return new URL(req.url, 'http://x').searchParams;
}

function handle(req, res) {
  stats.requests++;
  const path = new URL(req.url, 'http://x').pathname;
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    if (path === '/echo') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body, httpVersion: req.httpVersion }));
    } else if (path.startsWith('/status/')) {
      const code = Number(path.slice('/status/'.length));
      const headers = [['X-Test', 'one'], ['X-Test', 'two']];
      if (code === 401) headers.push(['WWW-Authenticate', 'Bearer realm="a"'], ['WWW-Authenticate', 'Basic realm="b"']);
      res.writeHead(code, headers.flat());
      res.end('status ' + code);
    } else if (path === '/slow') {
      const timer = setTimeout(() => res.end('slow'), Number(query(req).get('ms') || 1000));
      res.on('close', () => clearTimeout(timer));
    } else if (path === '/big') {
      res.end('x'.repeat(Number(query(req).get('bytes') || 0)));
    } else if (path === '/sse') {
      const events = Number(query(req).get('events') || 3);
      const gap = Number(query(req).get('gap') || 10);
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      let i = 0;
      const next = () => {
        if (i === events) return res.end();
        res.write(`data: {"i":${i++}}\n\n`);
        setTimeout(next, gap);
      };
      next();
    } else if (path === '/flood') {
      let left = Number(query(req).get('bytes') || 0);
      let n = 0;
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      const pump = () => {
        while (left > 0) {
          const size = Math.min(left, 16384);
          let piece = '';
          for (let k = 0; k < size; k++) piece += String.fromCharCode(97 + ((n + k) % 26));
          n += size;
          left -= size;
          if (!res.write(piece)) return res.once('drain', pump);
        }
        res.end();
      };
      pump();
    } else if (path === '/cut') {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '1000' });
      res.write('partial');
      setTimeout(() => req.socket.destroy(), 50);
    } else if (path === '/hang') {
      res.on('close', () => {
        if (!res.writableEnded) stats.abandoned++;
      });
    } else if (path === '/stats') {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(stats));
    } else {
      res.writeHead(404);
      res.end('no route');
    }
  });
}

// A forward proxy for plain http:// targets (absolute-form request lines).
function forward(req, res) {
  stats.proxied++;
  const target = new URL(req.url);
  const upstream = http.request(
    { host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode, { ...answer.headers, 'x-via-test-proxy': '1' });
      answer.pipe(res);
    }
  );
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

let server;
if (proxy) {
  server = http.createServer((req, res) => (req.url.startsWith('http://') ? forward(req, res) : handle(req, res)));
} else if (tls >= 0) {
  const options = { cert: fs.readFileSync(args[tls + 1]), key: fs.readFileSync(args[tls + 2]) };
  server = h2 ? http2.createSecureServer({ ...options, allowHTTP1: true }, handle) : https.createServer(options, handle);
} else {
  server = http.createServer(handle);
}
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
process.on('SIGTERM', () => process.exit(0));
