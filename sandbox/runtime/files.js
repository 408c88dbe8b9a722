'use strict';
// The files part of the protocol: writes the files the host sends in `init`
// into /skills and /workspace, and after each exec reports what changed there.
// The host validates every path, size and count again: this side only keeps
// honest code from sending what the host would refuse anyway. With a DirWatch
// (dir_watch.js), a report walks the roots only when something may have changed.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

class FileTracker {
  constructor(roots, limits, watch = null) {
    this.roots = roots; // {skills: '/skills', workspace: '/workspace'}
    this.limits = limits; // {maxFileBytes, maxFiles, reportBytes?}
    this.watch = watch; // a DirWatch shared by the trackers of one runtime, or null: scan every time
    this.snapshot = new Map(); // "root/rel" -> {size, mtimeMs, hash}
    this.reportedLinks = new Set(); // symlinks already reported, so each is reported once
    this.deferredLeft = false; // the last report left files for the next one
  }

  // files: [{root, path, content, encoding: 'utf8'|'base64'}]. `known`: the
  // snapshot of what is on disk already (the warm-up's scan plus what the
  // pool's `put` wrote before the sandbox was claimed); then only the files
  // written now are stat'ed, not both roots walked again, which on a
  // container's filesystem costs milliseconds of every request.
  // `alone`: no agent code ran in this sandbox yet, so every write now is
  // ours and leaves the watched state clean.
  async writeInitial(files, known, alone = false) {
    const wasClean = alone && this.watch !== null && this.watch.clean();
    const written = this.write(files);
    if (!known) {
      this.snapshot = this.fullScan().entries;
      return;
    }
    this.snapshot = new Map(known);
    for (const w of written) {
      const st = fs.lstatSync(w.full);
      this.snapshot.set(w.key, { root: w.root, rel: w.rel, full: w.full, size: st.size, mtimeMs: st.mtimeMs });
    }
    if (wasClean && written.length > 0) await this.quietOwnWrites(written.map((w) => path.dirname(w.full)));
  }

  // After the runtime's own writes into a clean tree: reads their events,
  // watches the folders they went into, and counts the tree clean again.
  async quietOwnWrites(dirs) {
    await this.watch.settle();
    const ancestors = new Set();
    for (let dir of dirs) {
      while (!Object.values(this.roots).includes(dir) && dir !== path.dirname(dir)) {
        ancestors.add(dir);
        dir = path.dirname(dir);
      }
    }
    this.watch.add([...ancestors]);
    if (!this.watch.broken) this.watch.dirty = false;
  }

  // Writes files whose copy the host already has (see runPut in runtime.js):
  // they enter the snapshot as they are, while changes made by the code since
  // the last report still count as changes.
  async writeKnown(files, alone = false) {
    const wasClean = alone && this.watch !== null && this.watch.clean();
    const written = this.write(files);
    const { entries } = this.scan();
    for (const { key } of written) {
      if (entries.has(key)) this.snapshot.set(key, entries.get(key));
    }
    if (wasClean && written.length > 0) await this.quietOwnWrites(written.map((w) => path.dirname(w.full)));
  }

  // Returns what it wrote: [{key ("root/rel", the snapshot's key), root, rel, full}].
  write(files) {
    const written = [];
    for (const f of files || []) {
      const base = this.roots[f.root];
      if (!base) throw new Error(`file has unknown root '${f.root}'`);
      const target = path.resolve(base, f.path);
      if (!target.startsWith(base + path.sep)) throw new Error(`file path escapes ${f.root}: ${f.path}`);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, Buffer.from(f.content || '', f.encoding === 'base64' ? 'base64' : 'utf8'));
      const rel = path.relative(base, target);
      written.push({ key: `${f.root}/${rel}`, root: f.root, rel, full: target });
    }
    return written;
  }

  // Walks both roots without following symlinks.
  scan() {
    const entries = new Map();
    const links = [];
    const dirs = [];
    let count = 0;
    const walk = (root, dir) => {
      let names;
      try { names = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
      dirs.push(dir);
      for (const d of names) {
        const full = path.join(dir, d.name);
        const rel = path.relative(this.roots[root], full);
        if (d.isSymbolicLink()) { links.push({ root, path: rel, target: fs.readlinkSync(full) }); continue; }
        if (d.isDirectory()) { walk(root, full); continue; }
        if (!d.isFile()) continue;
        if (++count > this.limits.maxFiles * 4) return; // a runaway tree: stop walking, the host refuses it anyway
        const st = fs.statSync(full);
        entries.set(`${root}/${rel}`, { root, rel, full, size: st.size, mtimeMs: st.mtimeMs });
      }
    };
    for (const root of Object.keys(this.roots)) walk(root, this.roots[root]);
    return { entries, links, dirs };
  }

  // A scan that leaves the watch in step with the tree: `dirty` is cleared
  // before the walk (an event from here on means one more scan later), and
  // folders seen for the first time are watched, then walked again.
  fullScan() {
    if (!this.watch) return this.scan();
    this.watch.dirty = false;
    let result = this.scan();
    for (let round = 0; round < 3; ++round) {
      if (this.watch.track(result.dirs).length === 0) return result;
      result = this.scan();
    }
    this.watch.dirty = true; // folders keep appearing: look again next time
    return result;
  }

  // Returns [{root, path, op: 'write'|'delete'|'symlink', content?, size?, tooLarge?, target?}]
  // for everything that changed since the last call, and remembers the new state.
  changes() {
    if (this.watch && this.watch.clean() && !this.deferredLeft) return [];
    const { entries, links } = this.fullScan();
    const out = [];
    // The contents of one report share a budget so the `done` frame stays under
    // the host's frame cap (base64 adds a third). Files past it are left out of
    // the snapshot, so the next report carries them.
    let budget = this.limits.reportBytes || 8 * 1024 * 1024;
    const deferred = [];
    for (const [key, e] of entries) {
      const before = this.snapshot.get(key);
      if (before && before.size === e.size && before.mtimeMs === e.mtimeMs) {
        e.hash = before.hash;
        continue;
      }
      if (e.size > this.limits.maxFileBytes) {
        out.push({ root: e.root, path: e.rel, op: 'write', size: e.size, tooLarge: true });
        continue;
      }
      if (e.size > budget) {
        deferred.push(key);
        continue;
      }
      const data = fs.readFileSync(e.full);
      e.hash = crypto.createHash('sha1').update(data).digest('hex');
      if (before && before.hash === e.hash) continue; // touched, not changed
      budget -= data.length;
      out.push({ root: e.root, path: e.rel, op: 'write', size: e.size, content: data.toString('base64') });
    }
    for (const [key, e] of this.snapshot) {
      if (!entries.has(key)) out.push({ root: e.root, path: e.rel, op: 'delete' });
    }
    for (const key of deferred) entries.delete(key);
    this.deferredLeft = deferred.length > 0;
    const seenLinks = new Set();
    for (const l of links) {
      const key = `${l.root}/${l.path}->${l.target}`;
      seenLinks.add(key);
      if (!this.reportedLinks.has(key)) out.push({ root: l.root, path: l.path, op: 'symlink', target: l.target });
    }
    this.reportedLinks = seenLinks;
    this.snapshot = entries;
    return out;
  }
}

module.exports = { FileTracker };
