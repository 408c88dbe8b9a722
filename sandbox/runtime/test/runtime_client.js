'use strict';
// Test helper: runs runtime.js as a child process, as the host would, with
// temporary folders standing in for /skills and /workspace.
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

class RuntimeClient {
  constructor({ onCall } = {}) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runtime-test-'));
    this.skills = path.join(this.dir, 'skills');
    this.workspace = path.join(this.dir, 'workspace');
    fs.mkdirSync(this.skills);
    fs.mkdirSync(this.workspace);
    const env = { ...process.env, SANDBOX_SKILLS_DIR: this.skills, SANDBOX_WORKSPACE_DIR: this.workspace };
    delete env.NODE_EXTRA_CA_CERTS;
    this.child = spawn(process.execPath, [path.join(__dirname, '..', 'runtime.js')], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.frames = [];
    this.waiters = [];
    this.stderr = '';
    this.onCall = onCall || ((frame) => ({ ok: false, error: { message: `no tool ${frame.name}` } }));
    let buffered = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        this.onFrame(JSON.parse(line));
      }
    });
    this.child.stderr.on('data', (d) => { this.stderr += d; });
  }

  async onFrame(frame) {
    this.frames.push(frame);
    if (frame.type === 'call') {
      const reply = await this.onCall(frame);
      this.send({ type: 'reply', id: frame.id, ...reply });
    }
    this.waiters = this.waiters.filter((w) => !(w.match(frame) && (w.resolve(frame), true)));
  }

  send(frame) { this.child.stdin.write(JSON.stringify(frame) + '\n'); }

  next(match, timeoutMs = 10000) {
    const found = this.frames.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching frame; stderr: ${this.stderr}`)), timeoutMs);
      this.waiters.push({ match, resolve: (f) => { clearTimeout(timer); resolve(f); } });
    });
  }

  async ready() { return this.next((f) => f.type === 'ready'); }

  init(extra = {}) { this.send({ type: 'init', session: 's1', limits: {}, files: [], ...extra }); }

  async exec(code) {
    const id = `e${++RuntimeClient.seq}`;
    this.send({ type: 'exec', id, code });
    const done = await this.next((f) => f.type === 'done' && f.exec === id);
    done.logs = this.frames.filter((f) => f.type === 'log' && f.exec === id);
    done.calls = this.frames.filter((f) => f.type === 'call' && f.exec === id);
    return done;
  }

  close() {
    this.child.kill('SIGKILL');
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
RuntimeClient.seq = 0;

module.exports = { RuntimeClient };
