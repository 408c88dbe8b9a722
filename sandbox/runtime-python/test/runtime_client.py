"""Test helper: runs runtime.py as a child process, as the host would, with
temporary folders standing in for /skills and /workspace (the twin of
sandbox/runtime/test/runtime_client.js).

Frames are read on threads (stdout, and the call socket once linked) into
one list; next() waits for a matching one. `on_call(frame)` answers each
`call` frame with a reply dict ({ok, result} or {ok: False, error}), or
None to leave it unanswered (the test replies later with reply()).
"""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading

PYTHON = '/usr/bin/python3'  # Debian's, as in the sandbox image; not a pyenv one
# Started as the host starts it (src/sandbox/language.cpp): -I ignores PYTHON*
# variables and leaves the script's folder off sys.path, -u unbuffers stdio.
RUNTIME = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'runtime.py')
TIMEOUT = 20  # seconds; only to fail instead of hanging, never a timing assertion


def no_tool(frame):
    return {'ok': False, 'error': {'message': f"no tool {frame.get('name')}"}}


class RuntimeClient:
    _seq = 0

    def __init__(self, on_call=None):
        self.dir = tempfile.mkdtemp(prefix='runtime-py-test-')
        self.skills = os.path.join(self.dir, 'skills')
        self.workspace = os.path.join(self.dir, 'workspace')
        os.mkdir(self.skills)
        os.mkdir(self.workspace)
        env = dict(os.environ, SANDBOX_SKILLS_DIR=self.skills, SANDBOX_WORKSPACE_DIR=self.workspace)
        self.child = subprocess.Popen([PYTHON, '-I', '-u', RUNTIME], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, env=env)
        self.on_call = on_call or no_tool
        self.frames = []        # every frame the runtime sent, in order
        self.stdout_frames = []  # those that came on stdout
        self.stderr = b''
        self._changed = threading.Condition()
        self._socket = None       # the accepted call socket connection, once linked
        self._send_lock = threading.Lock()
        threading.Thread(target=self._read, args=(self.child.stdout, True), daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # --- reading ------------------------------------------------------------

    def _read(self, stream, from_stdout):
        for line in stream:
            frame = json.loads(line)
            with self._changed:
                self.frames.append(frame)
                if from_stdout:
                    self.stdout_frames.append(frame)
                self._changed.notify_all()
            if frame.get('type') == 'call':
                reply = self.on_call(frame)
                if reply is not None:
                    self.reply(frame['id'], reply)

    def _read_stderr(self):
        try:
            for line in self.child.stderr:
                with self._changed:
                    self.stderr += line
                    self._changed.notify_all()
        except ValueError:
            pass  # close() closed the pipe under the read: the test has ended

    def wait_stderr(self, fragment, timeout=TIMEOUT):
        """Waits until the runtime's diagnostics contain `fragment` (bytes)."""
        with self._changed:
            if not self._changed.wait_for(lambda: fragment in self.stderr, timeout):
                raise AssertionError(f'{fragment!r} not in stderr: {self.stderr!r}')

    def next(self, match, timeout=TIMEOUT):
        """The first frame (already received or still to come) that matches."""
        with self._changed:
            found = self._changed.wait_for(lambda: next((f for f in self.frames if match(f)), None), timeout)
        if found is None:
            raise AssertionError(f'no matching frame; stderr: {self.stderr.decode(errors="replace")}')
        return found

    def ready(self):
        return self.next(lambda f: f.get('type') == 'ready')

    # --- writing ------------------------------------------------------------

    def send(self, frame):
        data = (json.dumps(frame) + '\n').encode()
        with self._send_lock:
            if self._socket is not None:
                self._socket.sendall(data)
            else:
                self.child.stdin.write(data)
                self.child.stdin.flush()

    def send_raw(self, text):
        self.child.stdin.write(text.encode())
        self.child.stdin.flush()

    def reply(self, call_id, reply):
        self.send({'type': 'reply', 'id': call_id, **reply})

    def init(self, **extra):
        self.send({'type': 'init', 'session': 's1', 'limits': {}, 'files': [], **extra})

    def exec(self, code):
        """Runs a block; returns its done frame with .logs and .calls added."""
        exec_id = self.start(code)
        return self.wait_done(exec_id)

    def start(self, code):
        RuntimeClient._seq += 1
        exec_id = f'e{RuntimeClient._seq}'
        self.send({'type': 'exec', 'id': exec_id, 'code': code})
        return exec_id

    def wait_done(self, exec_id):
        done = dict(self.next(lambda f: f.get('type') == 'done' and f.get('exec') == exec_id))
        done['logs'] = [f for f in self.frames if f.get('type') == 'log' and f.get('exec') == exec_id]
        done['calls'] = [f for f in self.frames if f.get('type') == 'call' and f.get('exec') == exec_id]
        return done

    # --- the call socket ----------------------------------------------------

    def link(self, token='9f2c' * 8):
        """Does what the host's warm pool does: listens on a unix socket,
        sends `link`, takes the connection and checks its hello. Returns the
        hello frame; from then on frames travel on the socket."""
        path = os.path.join(self.dir, 'calls.sock')
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(1)
        server.settimeout(TIMEOUT)
        self.send({'type': 'link', 'socket': path, 'token': token})
        conn, _ = server.accept()
        server.close()
        reader = conn.makefile('rb')
        hello = json.loads(reader.readline())
        with self._send_lock:
            self._socket = conn
        threading.Thread(target=self._read, args=(reader, False), daemon=True).start()
        return hello

    def close_socket(self):
        self._socket.shutdown(socket.SHUT_RDWR)
        self._socket.close()

    # --- the end ------------------------------------------------------------

    def wait_exit(self):
        return self.child.wait(TIMEOUT)

    def close(self):
        if self.child.poll() is None:
            self.child.kill()
        self.child.wait()
        for stream in (self.child.stdin, self.child.stdout, self.child.stderr):
            try:
                stream.close()
            except OSError:
                pass
        if self._socket is not None:
            self._socket.close()
        shutil.rmtree(self.dir, ignore_errors=True)
