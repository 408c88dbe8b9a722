// Runs once at image build time (as root): makes the image's user, removes
// privilege-raising file modes, and creates the tmpfs mount points.
'use strict';
const fs = require('fs');
const path = require('path');

function rewrite(file, keep, add) {
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l && keep(l)) : [];
  lines.push(add);
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

// The official node image has a "node" user with uid 1000: sandboxuser replaces it.
rewrite('/etc/passwd', (l) => l.split(':')[2] !== '1000' && !l.startsWith('sandboxuser:'),
        'sandboxuser:x:1000:1000:sandbox:/workspace:/usr/sbin/nologin');
rewrite('/etc/group', (l) => l.split(':')[2] !== '1000' && !l.startsWith('sandboxuser:'), 'sandboxuser:x:1000:');
if (fs.existsSync('/etc/shadow')) {
  rewrite('/etc/shadow', (l) => !l.startsWith('node:') && !l.startsWith('sandboxuser:'), 'sandboxuser:!:19000::::::');
}

// No setuid/setgid files: with no-new-privileges they would not work anyway,
// this removes the attack surface from the image itself.
const skip = new Set(['/proc', '/sys', '/dev']);
function strip(dir) {
  let entries;
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (skip.has(p)) continue;
    if (e.isDirectory()) { strip(p); continue; }
    if (!e.isFile()) continue;
    const st = fs.statSync(p);
    if (st.mode & 0o6000) fs.chmodSync(p, st.mode & 0o1777);
  }
}
strip('/');

for (const dir of ['/workspace', '/skills', '/tmp']) {
  fs.mkdirSync(dir, { recursive: true });
}
fs.chownSync('/workspace', 1000, 1000);
fs.chownSync('/skills', 1000, 1000);
fs.chmodSync('/tmp', 0o1777);
