"""A block's output becomes `log` frames, capped per block.

print() writes to sys.stdout (level info) or sys.stderr (level error); the
logging module (debug/info/warn/error by the record's level) and warnings
(warn) are routed here too. Output is attributed to the block the writing
code belongs to (runtime_scope.py): output of a finished block's task or thread is
dropped, as nobody reads it any more.

print("a", "b") is four writes ("a", " ", "b", "\\n"); a frame per write
would be noise, so text is gathered per thread until a write ends a line,
and one frame carries it without the final newline (console.log's shape).
"""
import io
import logging
import threading
import warnings

import runtime_scope as scope

_LEVELS = ((logging.ERROR, 'error'), (logging.WARNING, 'warn'), (logging.INFO, 'info'))


class LogSink:
    """Sends a block's log frames within its byte budget (limits.logBytes)."""

    def __init__(self, output, log_bytes):
        self._output = output
        self._lock = threading.Lock()
        self.reset(log_bytes)

    def reset(self, log_bytes):
        """A new block: a fresh budget."""
        self.limit = int(log_bytes)
        self._used = 0
        self._truncated = False
        self._pending = {}  # (thread id, level) -> text of an unfinished line

    def write(self, level, text):
        """Text from a stream: frames go out for each finished line."""
        if not scope.live() or not text or self._truncated:
            return  # past the budget: nothing more this block, at no cost (a flood must not eat the deadline)
        key = (threading.get_ident(), level)
        with self._lock:
            text = self._pending.pop(key, '') + text
            if not text.endswith('\n') and len(text) < self.limit:
                self._pending[key] = text
                return
        self.emit(level, text[:-1] if text.endswith('\n') else text)

    def flush(self):
        """The block ends: unfinished lines go out as they are."""
        with self._lock:
            pending, self._pending = self._pending, {}
        for (_, level), text in pending.items():
            self.emit(level, text)

    def emit(self, level, text):
        """One log frame of the running block, within the budget; past it one
        `[log output truncated ...]` line and nothing more this block."""
        block = scope.current()
        if not scope.live() or self._truncated:
            return
        data = text.encode('utf-8', 'replace')
        with self._lock:
            if self._truncated:
                return
            room = self.limit - self._used
            if len(data) > room:
                self._truncated = True
                cut = data[:max(0, room)].decode('utf-8', 'ignore')
                frames = ([{'type': 'log', 'exec': block, 'level': level, 'text': cut}] if cut else []) + [
                    {'type': 'log', 'exec': block, 'level': 'warn',
                     'text': f'[log output truncated at {self.limit} bytes]'}]
            else:
                self._used += len(data)
                frames = [{'type': 'log', 'exec': block, 'level': level, 'text': text}]
        for frame in frames:
            self._output.send(frame)


class CapturedStream(io.TextIOBase):
    """sys.stdout / sys.stderr of agent code."""

    def __init__(self, sink, level, name):
        self._sink = sink
        self._level = level
        self._name = name

    @property
    def name(self):
        return self._name

    @property
    def encoding(self):
        return 'utf-8'

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f'write() argument must be str, not {type(text).__name__}')
        self._sink.write(self._level, text)
        return len(text)

    @property
    def buffer(self):
        """sys.stdout.buffer.write(b"...") works too: bytes are read as UTF-8."""
        return _BinaryStream(self)

    def reconfigure(self, **_):
        """Accepted and ignored (code calls sys.stdout.reconfigure(encoding="utf-8")):
        the text goes into JSON frames, always UTF-8."""


class _BinaryStream(io.RawIOBase):
    def __init__(self, text_stream):
        self._text = text_stream

    def writable(self):
        return True

    def write(self, data):
        self._text.write(bytes(data).decode('utf-8', 'replace'))
        return len(data)


class _Handler(logging.Handler):
    def __init__(self, sink):
        super().__init__(logging.DEBUG)
        self._sink = sink

    def emit(self, record):
        try:
            text = self.format(record)
        except Exception:
            self.handleError(record)
            return
        level = next((name for number, name in _LEVELS if record.levelno >= number), 'debug')
        self._sink.emit(level, text)


def install(sink):
    """Routes logging and warnings to `sink`; the caller swaps sys.stdout and
    sys.stderr for CapturedStreams. The root logger takes every level, as
    console.debug always shows in the JavaScript runtime (and a block's
    logging.basicConfig(level=...) would do nothing: the root logger has a
    handler already)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = _Handler(sink)
    handler.setFormatter(logging.Formatter('%(message)s'))
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    # asyncio's own debug lines ("Using selector: EpollSelector" for every
    # new loop, asyncio.run included) are noise to the agent; its warnings
    # and errors still show.
    logging.getLogger('asyncio').setLevel(logging.WARNING)

    def show_warning(message, category, filename, lineno, file=None, line=None):
        sink.emit('warn', warnings.formatwarning(message, category, filename, lineno, line).rstrip('\n'))

    warnings.showwarning = show_warning
