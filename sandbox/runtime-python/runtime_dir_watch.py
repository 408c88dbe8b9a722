"""Whether anything under /skills and /workspace may have changed since the
file tracker's last full scan, so that a block that touched no file costs no
walk of both roots (the twin of sandbox/runtime/dir_watch.js).

The standard library has no inotify, so this calls the C library's
inotify_init1 and inotify_add_watch through ctypes: one inotify descriptor,
non-blocking, with a watch on every directory the last scan saw. Nothing
parses the events: any event at all (a write, a create, a delete, a rename,
a watched folder removed, the kernel's queue overflowing) marks the tree
dirty, and the next report walks it.

Why it is safe:
- the kernel queues an event inside the system call that changed the file,
  so once a block's write has returned, its event is waiting on the
  descriptor, and clean() reads the descriptor before it answers;
- `dirty` is cleared before a scan walks, so an event during or after the
  walk costs one more scan, never a missed change;
- a directory watched for the first time may have had entries written into
  it between the walk and the watch: the scan is walked again (begin() and
  track() in runtime_files.FileTracker.full_scan);
- a watch follows a directory's inode, and a path re-watched after a scan
  gets the new inode's watch (inotify_add_watch looks the path up afresh).
When a watch cannot be set (the inotify limits, more than MAX_WATCHED_DIRS
folders, no inotify at all) the watch is broken and every report walks both
roots, as it would without one.
"""
import ctypes
import errno
import os

MAX_WATCHED_DIRS = 256

_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF = 0x400, 0x800
_IN_ONLYDIR, _IN_DONT_FOLLOW, _IN_EXCL_UNLINK = 0x01000000, 0x02000000, 0x04000000
# Whatever changes an entry, a file's content or metadata, or the folder
# itself; not reads (a report reads files). Only folders, never through a
# symlink: a folder replaced by a link to elsewhere is not watched there.
# Not a file that was deleted while still open: its writes change nothing
# a report could see.
_MASK = (_IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
         | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR | _IN_DONT_FOLLOW | _IN_EXCL_UNLINK)
_READ_BYTES = 64 * 1024


class DirWatch:
    def __init__(self):
        self.dirty = True
        self.broken = False
        self._wds = {}  # directory -> watch descriptor
        self._fd = -1
        try:
            self._libc = ctypes.CDLL(None, use_errno=True)
            self._libc.inotify_add_watch.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32)
            fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        except (OSError, AttributeError):
            fd = -1
        if fd < 0:
            self.broken = True
        self._fd = fd

    def clean(self):
        """True when the last scan still holds: no event since it, and the watches work."""
        if self.broken:
            return False
        self._drain()
        return not self.dirty

    def begin(self):
        """A scan starts: every event so far is accounted for by it."""
        if not self.broken:
            self._drain()
            self.dirty = False

    def track(self, dirs):
        """Watches exactly `dirs` (the last scan's). Returns how many were
        watched for the first time (the caller walks again); 0 when broken."""
        if self.broken:
            return 0
        wanted = set(dirs)
        for folder in [d for d in self._wds if d not in wanted]:
            self._libc.inotify_rm_watch(self._fd, self._wds.pop(folder))  # EINVAL if it went already: fine
        return self.add(wanted)

    def add(self, dirs):
        """Watches `dirs` too, leaving the others. Returns how many are new;
        past MAX_WATCHED_DIRS in all, the watch is broken."""
        added = 0
        for folder in dirs:
            if self.broken:
                return 0
            if folder not in self._wds and len(self._wds) >= MAX_WATCHED_DIRS:
                self._fail()
                return 0
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _MASK)
            if wd < 0:
                if ctypes.get_errno() in (errno.ENOENT, errno.ENOTDIR):
                    self.dirty = True  # gone or replaced meanwhile: the next scan sees it
                    self._wds.pop(folder, None)
                    continue
                self._fail()  # ENOSPC (the user's watches are used up), or anything else
                return 0
            if self._wds.get(folder) != wd:
                added += 1
            self._wds[folder] = wd
        return added

    def quiet(self, folders):
        """After the runtime's own writes into a clean tree, with no agent code
        running: their events are ours, so the tree counts as clean again,
        and the folders they went into are watched from now on (one that
        has gone meanwhile leaves it dirty)."""
        if self.broken:
            return
        self._drain()
        self.dirty = False
        self.add(folders)

    def _drain(self):
        while True:
            try:
                data = os.read(self._fd, _READ_BYTES)
            except BlockingIOError:
                return
            except OSError:
                self._fail()
                return
            if not data:
                return
            self.dirty = True

    def _fail(self):
        self.broken = True
        self.dirty = True
        self._wds.clear()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
