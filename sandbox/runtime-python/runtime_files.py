"""The files part of the protocol: writes the files the host sends (`init`,
`put`) into /skills and /workspace, and after each block reports what
changed there. The twin of sandbox/runtime/files.js.

A report walks both roots only when something may have changed there
since the last walk (runtime_dir_watch.py; without inotify, every time):
lstat of every entry; a file is read only when its size or mtime moved,
and reported only when its content hash differs too. Symlinks are
reported as symlinks, never followed. The host validates every path, size
and count again: this side only keeps honest code from sending what the
host would refuse anyway.
"""
import base64
import hashlib
import os


class FileTracker:
    def __init__(self, roots, limits, watch=None):
        self.roots = {name: os.path.normpath(path) for name, path in roots.items()}
        self.limits = limits  # {'maxFileBytes', 'maxFiles', 'reportBytes'?}
        self.watch = watch  # a DirWatch shared by the trackers of one runtime, or None: walk every time
        self.snapshot = {}  # "root/rel" -> Entry
        self._reported_links = set()  # symlinks already reported, each is reported once
        self._deferred_left = False  # the last report left files for the next one
        self._walk_cut = False  # the last walk stopped at its budget: folders past it have no watch

    # --- the runtime's own writes -------------------------------------------

    def write_initial(self, files, known=None, alone=False):
        """`init`'s files. `known`: the snapshot of what is on disk already
        (the warm-up's scan plus what a `put` before init wrote); then only
        the files written now are looked at, not both roots walked again.
        `alone`: no agent code ran in this runtime yet, so every write now is
        ours and leaves a clean watched tree clean."""
        was_clean = alone and self.watch is not None and self.watch.clean()
        written = self.write(files)
        if known is None:
            self.snapshot = self.full_scan()[0]
            return
        self.snapshot = dict(known)
        self._remember(written)
        if was_clean and written:
            self._quiet_own_writes(written)

    def write_known(self, files, alone=False):
        """Files whose copy the host already has (`put`): they enter the
        snapshot as written, while changes the code made since the last
        report still count as changes."""
        was_clean = alone and self.watch is not None and self.watch.clean()
        written = self.write(files)
        self._remember(written)
        if was_clean and written:
            self._quiet_own_writes(written)

    def _quiet_own_writes(self, written):
        """Watches the folders our writes went into (up to their root, which
        is watched already) and counts the tree clean again."""
        folders = set()
        for _key, root, _rel, full, _data in written:
            folder = os.path.dirname(full)
            while folder != self.roots[root] and folder.startswith(self.roots[root] + os.sep):
                folders.add(folder)
                folder = os.path.dirname(folder)
        self.watch.quiet(folders)

    def _remember(self, written):
        for key, root, rel, full, data in written:
            st = os.lstat(full)
            self.snapshot[key] = Entry(root, rel, full, st.st_size, st.st_mtime_ns, _hash(data))

    def write(self, files):
        """Writes [{root, path, content, encoding: 'utf8'|'base64'}]; returns
        [(key, root, rel, full, data)]. Refuses paths outside their root."""
        written = []
        for f in files or []:
            base = self.roots.get(f.get('root'))
            if base is None:
                raise ValueError(f"file has unknown root '{f.get('root')}'")
            path = str(f.get('path', ''))
            target = os.path.normpath(os.path.join(base, path))
            if not target.startswith(base + os.sep):
                raise ValueError(f"file path escapes {f.get('root')}: {path}")
            content = f.get('content') or ''
            data = base64.b64decode(content) if f.get('encoding') == 'base64' else str(content).encode('utf-8')
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, 'wb') as out:
                out.write(data)
            rel = os.path.relpath(target, base)
            written.append((f"{f.get('root')}/{rel}", f.get('root'), rel, target, data))
        return written

    # --- what the code changed ----------------------------------------------

    def scan(self):
        """Walks both roots without following symlinks: ({key: Entry}, [links], [folders])."""
        entries, links, folders = {}, [], []
        budget = [int(self.limits.get('maxFiles', 200)) * 4]  # a runaway tree: stop, the host refuses it anyway

        def walk(root, folder, prefix):
            # `prefix`: the folder's path relative to the root, built up as we
            # go (os.path.relpath per entry was half the cost of a report).
            try:
                listing = list(os.scandir(folder))
            except OSError:
                return
            folders.append(folder)
            for item in listing:
                rel = prefix + item.name
                try:
                    # The file type comes with the listing (d_type): one lstat
                    # per regular file, none for the rest.
                    if item.is_symlink():
                        links.append((root, rel, os.readlink(item.path)))
                    elif item.is_dir(follow_symlinks=False):
                        walk(root, item.path, rel + '/')
                    elif item.is_file(follow_symlinks=False):
                        budget[0] -= 1
                        if budget[0] < 0:
                            return
                        st = item.stat(follow_symlinks=False)
                        entries[f'{root}/{rel}'] = Entry(root, rel, item.path, st.st_size, st.st_mtime_ns)
                except OSError:
                    continue  # removed while we looked: the next report sees it gone

        for root, folder in self.roots.items():
            walk(root, folder, '')
        self._walk_cut = budget[0] < 0
        return entries, links, folders

    def full_scan(self):
        """A scan that leaves the watch in step with the tree: `dirty` is
        cleared before the walk (an event from then on costs one more scan
        later), and folders watched for the first time are walked again."""
        if self.watch is None:
            return self.scan()
        self.watch.begin()
        try:
            result = self.scan()
            for _ in range(3):
                if self.watch.track(result[2]) == 0:
                    break
                result = self.scan()
            else:
                self.watch.dirty = True  # folders keep appearing: look again next time
        except BaseException:
            self.watch.dirty = True  # a walk that failed (a tree too deep, say) proves nothing
            raise
        if self._walk_cut or not all(folder in result[2] for folder in self.roots.values()):
            # Folders the walk never reached, or a root that is not there
            # yet, have no watch to say when they change.
            self.watch.dirty = True
        return result

    def changes(self):
        """[{root, path, op: 'write'|'delete'|'symlink', content?, size?,
        tooLarge?, target?}] since the last call; remembers the new state."""
        if self.watch is not None and not self._deferred_left and self.watch.clean():
            return []
        entries, links, _folders = self.full_scan()
        out = []
        # The contents of one report share a budget so the `done` frame stays
        # under the host's frame cap (base64 adds a third). Files past it stay
        # out of the snapshot, so the next report carries them.
        budget = int(self.limits.get('reportBytes') or 8 * 1024 * 1024)
        max_file = int(self.limits.get('maxFileBytes', 1024 * 1024))
        left_for_later = []
        for key, entry in entries.items():
            before = self.snapshot.get(key)
            if before is not None and before.size == entry.size and before.mtime_ns == entry.mtime_ns:
                entry.hash = before.hash
                continue
            if entry.size > max_file:
                out.append({'root': entry.root, 'path': entry.rel, 'op': 'write', 'size': entry.size,
                            'tooLarge': True})
                continue
            if entry.size > budget:
                left_for_later.append(key)
                continue
            try:
                with open(entry.full, 'rb') as source:
                    data = source.read()
            except OSError:
                left_for_later.append(key)  # gone or unreadable now: look again next time
                continue
            entry.hash = _hash(data)
            if before is not None and before.hash == entry.hash:
                continue  # touched, not changed
            budget -= len(data)
            out.append({'root': entry.root, 'path': entry.rel, 'op': 'write', 'size': len(data),
                        'content': base64.b64encode(data).decode('ascii')})
        for key, entry in self.snapshot.items():
            if key not in entries:
                out.append({'root': entry.root, 'path': entry.rel, 'op': 'delete'})
        self._deferred_left = bool(left_for_later)
        for key in left_for_later:
            entries.pop(key)
            if key in self.snapshot:
                entries[key] = self.snapshot[key]  # still there: not a delete either
        seen_links = set()
        for root, rel, target in links:
            seen_links.add((root, rel, target))
            if (root, rel, target) not in self._reported_links:
                out.append({'root': root, 'path': rel, 'op': 'symlink', 'target': target})
        self._reported_links = seen_links
        self.snapshot = entries
        return out


class Entry:
    __slots__ = ('root', 'rel', 'full', 'size', 'mtime_ns', 'hash')

    def __init__(self, root, rel, full, size, mtime_ns, digest=None):
        self.root, self.rel, self.full = root, rel, full
        self.size, self.mtime_ns, self.hash = size, mtime_ns, digest


def _hash(data):
    return hashlib.sha1(data).hexdigest()
