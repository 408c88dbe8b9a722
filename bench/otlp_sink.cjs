// An OTLP/HTTP endpoint that takes every export and keeps nothing: the
// collector side of bench/tracing_bench.sh, as cheap as a collector can be,
// so the bench measures the harness's own cost of tracing. Prints the port;
// GET /count gives {exports, bytes}.
const http = require('node:http');
let batches = 0;
let bytes = 0;
const server = http.createServer((req, res) => {
  let n = 0;
  req.on('data', (c) => { n += c.length; });
  req.on('end', () => {
    if (req.method === 'GET') {
      res.writeHead(200, {'Content-Type': 'application/json'});
      return res.end(JSON.stringify({exports: batches, bytes}));
    }
    batches += 1;
    bytes += n;
    res.writeHead(200, {'Content-Type': 'application/x-protobuf'});
    res.end();
  });
});
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => console.log(server.address().port));
