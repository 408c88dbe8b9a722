'use strict';
// The call socket (docs/architecture/runtime-protocol.md): a unix socket the
// host mounts into the container. After `link`, every frame in both
// directions travels on it instead of stdio, because a round trip there costs
// a fraction of one through the engine's attach stream. The first line is
// `hello` with the token from `link`.
const net = require('net');

class CallSocket {
  // spec: the `link` frame {socket, token}. onFrame(frame) gets each frame
  // the host sends; onFail(unsent lines) runs if it never connects; onClose()
  // when a connected socket closes.
  constructor(spec, { onFrame, onFail, onClose }) {
    this.state = 'connecting';
    this.waiting = [JSON.stringify({ type: 'hello', token: String(spec.token) })];
    this.buffered = '';
    this.conn = net.createConnection(String(spec.socket));
    this.conn.setEncoding('utf8');
    this.conn.on('connect', () => {
      this.state = 'open';
      this.conn.write(this.waiting.join('\n') + '\n');
      this.waiting = [];
    });
    this.conn.on('data', (chunk) => {
      this.buffered += chunk;
      let nl;
      while ((nl = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        if (!line.trim()) continue;
        let frame;
        try { frame = JSON.parse(line); } catch { process.stderr.write('runtime: ignoring a line that is not JSON\n'); continue; }
        onFrame(frame);
      }
    });
    this.conn.on('error', (err) => process.stderr.write(`runtime: call socket: ${err.message}\n`));
    this.conn.on('close', () => {
      const wasOpen = this.state === 'open';
      this.state = 'closed';
      if (wasOpen) return onClose();
      onFail(this.waiting.slice(1));  // not the hello
    });
  }

  // True when the line was taken (written, or queued until connected); false
  // when the socket failed and the caller must use stdout.
  sendLine(text) {
    if (this.state === 'open') this.conn.write(text + '\n');
    else if (this.state === 'connecting') this.waiting.push(text);
    else return false;
    return true;
  }
}

module.exports = { CallSocket };
