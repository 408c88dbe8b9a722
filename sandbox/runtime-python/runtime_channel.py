"""Where frames go: one JSON object per line, on stdout until the host sends
`link`, then on the call socket (runtime_call_socket.py).

Frames are written from the event loop, from the reader threads and from
threads a block started (their print output), so every write holds one lock
and goes out whole. Writes are plain blocking writes of the file descriptor
or socket the runtime saved at start-up: code in a block that replaces
sys.stdout cannot reach them.
"""
import json
import os
import sys
import threading


def dumps(frame):
    """One frame as bytes, without the newline. Lone surrogates (from
    undecodable file names, say) become '?': the host refuses JSON that is
    not valid UTF-8 as a protocol error and would discard the sandbox."""
    text = json.dumps(frame, ensure_ascii=False, separators=(',', ':'), allow_nan=False)
    return text.encode('utf-8', 'replace')


class Output:
    def __init__(self, stdout_fd):
        self._fd = stdout_fd
        self._lock = threading.Lock()
        self._socket = None
        # Until `ready`: the warm-up's frames go nowhere (see Runtime.warm_up in runtime_repl.py).
        self.warming = True

    def send(self, frame):
        self.send_line(dumps(frame))

    def send_line(self, data):
        if self.warming:
            return
        with self._lock:
            if self._socket is not None:
                try:
                    self._socket.sendall(data + b'\n')
                    return
                except OSError:
                    # The host closed the socket: the socket's reader sees the
                    # end and stops the runtime; nothing is listening here.
                    return
            try:
                _write_all(self._fd, data + b'\n')
            except OSError:
                pass  # the host has gone: stdin's end stops the runtime

    def switch_to(self, sock, first_line):
        """Sends `first_line` (the hello) on `sock`, then every further frame
        there. Under the lock, so no frame slips in before the hello."""
        with self._lock:
            sock.sendall(first_line + b'\n')
            self._socket = sock


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_frames(stream, on_frame, on_end):
    """Reads NDJSON frames from a binary stream (in a thread of its own) and
    hands each to on_frame; on_end() when the stream ends."""
    try:
        for line in stream:
            frame = parse_line(line)
            if frame is not None:
                on_frame(frame)
    except (OSError, ValueError) as err:
        diagnose(f'reading frames failed: {err}')
    on_end()


def parse_line(line):
    """One line from the host as a frame (a dict), or None for a blank line
    or one that is not a JSON object (said on stderr)."""
    if not line.strip():
        return None
    try:
        frame = json.loads(line)
    except ValueError:
        diagnose('ignoring a line that is not JSON')
        return None
    if not isinstance(frame, dict):
        diagnose('ignoring a line that is not a JSON object')
        return None
    return frame


_stderr = sys.__stderr__


def diagnose(text):
    """The runtime's own diagnostics, on the real stderr (the host logs it)."""
    try:
        _stderr.write(f'runtime: {text}\n')
        _stderr.flush()
    except (OSError, ValueError):
        pass
