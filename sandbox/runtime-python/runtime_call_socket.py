"""The call socket (docs/architecture/runtime-protocol.md): a unix socket the
host mounts into the container. After `link`, every frame in both directions
travels on it instead of stdio, because a round trip there costs a fraction
of one through the engine's attach stream. The first line is `hello` with
the token from `link`.

The twin of sandbox/runtime/call_socket.js. Connecting to a unix socket does
not wait on anything remote, so it is done at once, in the thread that read
`link`; if it fails, frames simply stay on stdout (the host gives up on the
socket too, after its own timeout).

Who reads it. The runtime's event loop does (loop.add_reader), so a reply
wakes the loop that waits for it and nothing else: one wake-up per tool
call, as in the JavaScript runtime. A reader thread that handed each reply
to the loop cost a second wake-up and a thread switch per call, about a
third of Python's time per call (docs/BENCHMARKS.md, "Python and
JavaScript sandboxes").

But a block can hold the loop: time.sleep, a thread pool's map, asyncio.run
(whose coroutine runs on a thread of its own, runtime_scope.py). Calls from
other threads must still get their replies then, and `stop` must still stop.
So while a block runs, a watch thread looks at the socket every WATCH_SECONDS;
when data has waited there a whole interval without the loop reading, the
loop is held, and the thread reads in its place until the loop reads again.
"""
import select
import socket
import threading
import time

import runtime_channel as channel

WATCH_SECONDS = 0.02
_CHUNK = 1 << 16


def _sleep():
    time.sleep(WATCH_SECONDS)


def link(frame, output, loop, on_frame, on_close, adopt):
    """Connects to frame['socket'], hands the SocketReader to adopt() and
    only then says hello with frame['token'] and moves `output` there: the
    host sends blocks once it has the hello, and the runtime must know its
    reader by then (a block tells it that it runs). Returns True when linked."""
    path = frame.get('socket')
    if not isinstance(path, str) or not path:
        return False
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as err:
        channel.diagnose(f'call socket: {err}; frames stay on stdio')
        sock.close()
        return False
    reader = SocketReader(sock, loop, on_frame, on_close)
    adopt(reader)
    try:
        output.switch_to(sock, channel.dumps({'type': 'hello', 'token': str(frame.get('token'))}))
    except OSError as err:
        channel.diagnose(f'call socket: {err}; frames stay on stdio')
        adopt(None)
        sock.close()
        return False
    reader.start()
    return True


class SocketReader:
    """Reads frames from the linked socket on the loop, or on the watch thread
    while a block holds the loop. The socket stays blocking for the writers
    (runtime_channel.Output); reads never wait (MSG_DONTWAIT)."""

    def __init__(self, sock, loop, on_frame, on_close):
        self._sock = sock
        self._loop = loop
        self._on_frame = on_frame
        self._on_close = on_close
        self._read_lock = threading.Lock()  # held by whoever reads: the loop or the watch thread
        self._pending = b''  # the start of a line not yet ended
        self._closed = False
        self._loop_turns = 0  # how often the loop found the socket readable; the watch thread sees it move
        self._block_running = threading.Event()

    def start(self):
        # Called on the thread that read `link`; the loop registers the reader itself.
        self._loop.call_soon_threadsafe(self._loop.add_reader, self._sock.fileno(), self._on_readable)
        threading.Thread(target=self._watch, name='call socket watch', daemon=True).start()

    def block_started(self):
        self._block_running.set()

    def block_ended(self):
        self._block_running.clear()

    # --- on the loop --------------------------------------------------------

    def _on_readable(self):
        self._loop_turns += 1  # the loop is free: the watch thread need not read for it
        if not self._read_lock.acquire(blocking=False):
            return  # the watch thread is reading; the loop is called again while data is left
        try:
            self._read_once()
        finally:
            self._read_lock.release()

    # --- on the watch thread ------------------------------------------------

    def _watch(self):
        poller = select.poll()
        poller.register(self._sock.fileno(), select.POLLIN)
        while not self._closed:
            self._block_running.wait()
            _sleep()
            if not poller.poll(0):
                continue
            turns = self._loop_turns
            _sleep()
            if self._loop_turns != turns or not poller.poll(0):
                continue
            # Data has waited a whole interval and the loop has not turned
            # to it: a block holds the loop.
            self._read_while_held(poller)

    def _read_while_held(self, poller):
        """Reads in the loop's place, as soon as data comes, until the loop
        turns to the socket again or the block ends."""
        turns = self._loop_turns
        while not self._closed and self._block_running.is_set() and self._loop_turns == turns:
            with self._read_lock:
                while self._read_once():
                    pass
            poller.poll(int(WATCH_SECONDS * 1000))

    # --- either -------------------------------------------------------------

    def _read_once(self):
        """Reads what has arrived and hands on every whole line. False when
        nothing was there (or the socket has ended)."""
        if self._closed:
            return False
        try:
            data = self._sock.recv(_CHUNK, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError as err:
            channel.diagnose(f'reading frames failed: {err}')
            data = b''
        if not data:
            self._end()
            return False
        lines = (self._pending + data).split(b'\n')
        self._pending = lines.pop()
        for line in lines:
            frame = channel.parse_line(line)
            if frame is not None:
                self._on_frame(frame)
        return True

    def _end(self):
        self._closed = True
        self._block_running.set()  # the watch thread wakes and sees the end
        self._loop.call_soon_threadsafe(self._loop.remove_reader, self._sock.fileno())
        self._on_close()
