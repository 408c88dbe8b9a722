'use strict';
// The call socket (docs/architecture/runtime-protocol.md): `call` frames go to
// the host over a unix socket bind-mounted into the container and their
// `reply` frames come back on it, because a round trip there costs a fraction
// of one through the engine's attach stream. The first line is `hello` with
// the session's token. Frames wait in order until the socket is connected; if
// it never connects they are handed back, to go over stdout as before.
const net = require('net');

class CallSocket {
  // spec: {socket, token} from `init`. onFrame(frame) gets each frame the host
  // sends; onLost(unsent, wasOpen) gets the frames never written when the
  // socket closes (all of them if it never opened).
  constructor(spec, { onFrame, onLost }) {
    this.state = 'connecting';
    this.waiting = [];
    this.buffered = '';
    this.conn = net.createConnection(String(spec.socket));
    this.conn.setEncoding('utf8');
    this.conn.on('connect', () => {
      this.state = 'open';
      const lines = [JSON.stringify({ type: 'hello', token: String(spec.token) }), ...this.waiting.map((f) => JSON.stringify(f))];
      this.waiting = [];
      this.conn.write(lines.join('\n') + '\n');
    });
    this.conn.on('data', (chunk) => {
      this.buffered += chunk;
      let nl;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        let frame;
        try { frame = JSON.parse(line); } catch { continue; }
        onFrame(frame);
      }
    });
    this.conn.on('error', (err) => process.stderr.write(`runtime: call socket: ${err.message}\n`));
    this.conn.on('close', () => {
      const wasOpen = this.state === 'open';
      this.state = 'closed';
      const unsent = this.waiting;
      this.waiting = [];
      onLost(unsent, wasOpen);
    });
  }

  // True when the frame was taken (written, or queued until connected);
  // false when the socket is gone and the caller must use stdout.
  send(frame) {
    if (this.state === 'open') this.conn.write(JSON.stringify(frame) + '\n');
    else if (this.state === 'connecting') this.waiting.push(frame);
    else return false;
    return true;
  }

  close() {
    this.state = 'closed';
    this.conn.destroy();
  }
}

module.exports = { CallSocket };
