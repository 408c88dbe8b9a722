'use strict';
// Whether anything under /skills and /workspace may have changed since the
// file tracker's last full scan, so that a block that touched no file costs
// no walk of both roots (about a millisecond of every block on a container's
// filesystem). An inotify watch (fs.watch) on every directory the scan saw;
// any event in one marks the tracker dirty.
//
// Safe by construction: the tracker clears `dirty` *before* it scans, so an
// event during or after the scan only costs one more scan; a directory seen
// for the first time is watched and then walked again, so nothing written in
// it between the walk and the watch is missed. When a watch cannot be set
// (inotify limits, too many directories) the tracker stays dirty and scans
// after every block, as it did without watches.
const fs = require('fs');
const path = require('path');

// Past this many directories a tree is walked after every block instead.
const MAX_WATCHED_DIRS = 256;

class DirWatch {
  constructor() {
    this.watchers = new Map(); // directory -> FSWatcher
    // Folders that may have been removed or replaced since they were watched:
    // a watch follows the inode, so a folder made again at the same path
    // needs a new one.
    this.stale = new Set();
    this.dirty = true;
    this.broken = false; // a watch failed: every report scans
  }

  // True when the last scan still holds: no event since it, and watches work.
  clean() {
    return !this.dirty && !this.broken;
  }

  // Watches exactly `dirs` (the last scan's). Returns the directories watched
  // for the first time: the caller walks them again.
  track(dirs) {
    if (this.broken) return [];
    if (dirs.length > MAX_WATCHED_DIRS) return this.fail();
    const wanted = new Set(dirs);
    for (const [dir, watcher] of this.watchers) {
      if (!wanted.has(dir) || this.stale.has(dir)) {
        watcher.close();
        this.watchers.delete(dir);
      }
    }
    this.stale.clear();
    const added = [];
    for (const dir of wanted) {
      if (this.watchers.has(dir)) continue;
      let watcher;
      try {
        watcher = fs.watch(dir, { persistent: false }, (event, name) => this.saw(dir, event, name));
      } catch {
        // A directory removed meanwhile comes and goes with the next scan; a
        // full inotify table (ENOSPC) or anything else: no more watching.
        if (!fs.existsSync(dir)) { this.dirty = true; continue; }
        return this.fail();
      }
      watcher.on('error', () => this.fail());
      this.watchers.set(dir, watcher);
      added.push(dir);
    }
    return added;
  }

  saw(dir, event, name) {
    this.dirty = true;
    if (event !== 'rename') return;
    // An entry came or went (perhaps a folder), or the folder itself did.
    if (name) this.stale.add(path.join(dir, String(name)));
    if (!name || String(name) === path.basename(dir)) this.stale.add(dir);
  }

  // Watches `dirs` too (directories the runtime itself just wrote into),
  // leaving the others as they are.
  add(dirs) {
    if (this.broken) return;
    this.track([...new Set([...this.watchers.keys(), ...dirs])]);
  }

  // Resolves once the event loop has read the inotify events already queued
  // in the kernel: a write made by a block queues its event synchronously,
  // but node reads it only in the poll phase of a later turn of the loop.
  // Two immediates in a row have a poll phase between them.
  settle() {
    return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
  }

  fail() {
    this.broken = true;
    this.dirty = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    return [];
  }
}

module.exports = { DirWatch };
