"""The REPL: frames in, frames out (docs/architecture/runtime-protocol.md).

It boots, warms up, says `ready`, takes `init` (session, limits, files), then
runs each `exec` as the body of an async function over the session's
globals (runtime_blocks.py). The twin of sandbox/runtime/runtime.js.

Threads: a reader thread parses the frames on stdin; once linked, the
event loop reads the call socket itself, with a watch thread that reads in
its place while a block holds the loop (runtime_call_socket.py). `reply`,
`stop` and `link` are handled where they are read, so a reply reaches a
call even while a block blocks its loop (asyncio.run inside a block,
time.sleep); every other frame queues for the event loop, which runs them
one after another.
"""
import asyncio
import builtins
import importlib
import io
import json
import os
import sys
import threading
import time
import types

import runtime_blocks as blocks
import runtime_call_socket as call_socket
import runtime_channel as channel
import runtime_helpers as helpers
import runtime_logs as logs
import runtime_scope as scope
import runtime_skills as skills
from runtime_dir_watch import DirWatch
from runtime_files import FileTracker
from runtime_serialize import NotJSONError, describe_error, to_json

ROOTS = {
    'skills': os.path.abspath(os.environ.get('SANDBOX_SKILLS_DIR') or '/skills'),
    'workspace': os.path.abspath(os.environ.get('SANDBOX_WORKSPACE_DIR') or '/workspace'),
}
DEFAULT_LIMITS = {'logBytes': 64 * 1024, 'maxFileBytes': 1024 * 1024, 'maxFiles': 200,
                  'frameBytes': 16 * 1024 * 1024}
_EXIT = object()  # queued when the host's side of the channel ends


class Runtime:
    def __init__(self, loop, output):
        self.loop = loop
        self.output = output
        self.limits = dict(DEFAULT_LIMITS)
        self.watch = DirWatch()  # shared by the trackers of every init
        self.tracker = FileTracker(ROOTS, self.limits, self.watch)
        self.sink = logs.LogSink(output, self.limits['logBytes'])
        self.calls = helpers.Calls(output, self.limits['frameBytes'])
        self.agent_files = blocks.AgentFiles()
        self.skills = skills.install(ROOTS['skills'])
        self.queue = asyncio.Queue()
        self.socket_reader = None  # once linked (runtime_call_socket.SocketReader)
        self.warmed_up = False
        self.code_ran = False  # agent code ran here (after the warm-up): the files may change behind our back
        self.namespace = None
        self.namespace_used = False  # a block ran in it: init must start a fresh one
        self.new_namespace()

    def new_namespace(self):
        """A session's globals: a module called __main__ (so pickle finds the
        agent's classes and `if __name__ == "__main__":` runs), holding the
        helpers and asyncio and json, which nearly every block needs."""
        module = types.ModuleType('__main__')
        module.__dict__.update(helpers.make_helpers(self.calls))
        module.__dict__.update({'__builtins__': builtins, 'asyncio': asyncio, 'json': json})
        sys.modules['__main__'] = module
        self.namespace = module.__dict__
        self.namespace_used = False

    # --- frames -------------------------------------------------------------

    def on_frame(self, frame):
        """Called for every frame the host sends, on whichever thread read it
        (the stdin reader, the loop, or the call socket's watch thread)."""
        kind = frame.get('type')
        if kind == 'reply':
            self.calls.deliver(frame)
        elif kind == 'stop':
            os._exit(0)
        elif kind == 'link':
            if self.socket_reader is None:
                call_socket.link(frame, self.output, self.loop, self.on_frame, self.on_end, self.adopt_reader)
        else:
            self.to_loop(self.queue.put_nowait, frame)

    def adopt_reader(self, reader):
        self.socket_reader = reader

    def to_loop(self, fn, *args):
        """Runs fn(*args) on the loop, in the order frames were read: with
        call_soon when called there (the call socket's frames; no wake-up
        through the self-pipe needed), else through its thread-safe queue,
        which also wakes it. Both append to the same queue of callbacks, so
        a frame the watch thread read is never overtaken by a later one the
        loop read."""
        if asyncio._get_running_loop() is self.loop:
            self.loop.call_soon(fn, *args)
        else:
            self.loop.call_soon_threadsafe(fn, *args)

    def on_end(self):
        """The host closed stdin (or the call socket once linked): stop,
        after the frames already received."""
        self.to_loop(self.queue.put_nowait, _EXIT)

    async def serve(self):
        await self.warm_up()
        self.output.warming = False
        self.output.send({'type': 'ready', 'pid': os.getpid(), 'python': '%d.%d.%d' % sys.version_info[:3]})
        while True:
            frame = await self.queue.get()
            if frame is _EXIT:
                os._exit(0)
            kind = frame.get('type')
            try:
                if kind == 'init':
                    self.run_init(frame)
                elif kind == 'exec':
                    await self.run_exec(frame)
                elif kind == 'put':
                    self.run_put(frame)
                else:
                    channel.diagnose(f'unknown frame type {json.dumps(kind)}')
            except Exception as err:
                channel.diagnose(f'{kind} failed: {err!r}')
                # The host waits for a `done`: it gets one, not a hang until its deadline.
                if kind in ('init', 'exec'):
                    self.output.send({'type': 'done', 'exec': frame.get('id') if kind == 'exec' else None,
                                      'ok': False, 'files': [], 'error': {
                                          'name': 'InitError' if kind == 'init' else 'RuntimeError',
                                          'message': str(err) if kind == 'init' else f'the runtime failed: {err}'}})

    # --- init, put ----------------------------------------------------------

    def run_init(self, frame):
        limits = frame.get('limits') if isinstance(frame.get('limits'), dict) else {}
        self.limits = {**DEFAULT_LIMITS, **limits}
        self.calls.frame_bytes = int(self.limits['frameBytes'])
        # What is on disk already is known: the warm-up scanned both roots,
        # and a `put` before init (the shared example skills, written while
        # the sandbox waited in the pool) added its files.
        known = self.tracker.snapshot if self.warmed_up else None
        self.tracker = FileTracker(ROOTS, self.limits, self.watch)
        self.tracker.write_initial(frame.get('files'), known, alone=not self.code_ran)
        if self.namespace_used:
            self.new_namespace()
            self.skills.forget()

    def run_put(self, frame):
        """`put` {id, files}: the host's own writes (the full text of a long
        observation; before init, the pool's shared skills). Not reported
        back as a change: the host wrote its copy already."""
        done = {'type': 'done', 'exec': frame.get('id'), 'ok': True, 'files': []}
        try:
            self.tracker.write_known(frame.get('files'), alone=not self.code_ran)
        except Exception as err:
            done.update(ok=False, error={'name': 'PutError', 'message': str(err)})
        self.output.send(done)

    # --- exec ---------------------------------------------------------------

    async def run_exec(self, frame):
        exec_id = frame.get('id')
        self.sink.reset(self.limits['logBytes'])
        started = time.perf_counter()
        context = scope.enter(exec_id)
        reader = self.socket_reader
        if reader is not None:
            reader.block_started()
        try:
            result = await self.loop.create_task(self.evaluate(str(frame.get('code') or '')), context=context)
            context.run(self.sink.flush)
            try:
                files = self.tracker.changes()
            except Exception as err:
                files = []
                context.run(self.sink.emit, 'warn', f'could not scan files: {err}')
            ms = (time.perf_counter() - started) * 1000
            data = channel.dumps({'type': 'done', 'exec': exec_id, **result, 'files': files, 'ms': ms})
            limit = int(self.limits['frameBytes'])
            if len(data) > limit:
                data = channel.dumps({'type': 'done', 'exec': exec_id, 'ok': False, 'files': [], 'ms': ms, 'error': {
                    'name': 'ValueError',
                    'message': f'the result is {len(data)} bytes; the limit is {limit}: return less, or write it '
                               'to /workspace'}})
            self.output.send_line(data)
        finally:
            if reader is not None:
                reader.block_ended()
            scope.leave()

    async def evaluate(self, code):
        """Runs one block: {ok, value?} or {ok: False, error}."""
        self.namespace_used = True
        self.code_ran = True
        self.skills.refresh()
        importlib.invalidate_caches()  # a module the last block wrote into /workspace is importable now
        filename = self.agent_files.register(code)
        try:
            block = blocks.compile_block(code, filename, self.namespace)
            value = await block()
        except BaseException as exc:  # SystemExit too: a block's sys.exit() ends the block, not the runtime
            return {'ok': False, 'error': describe_error(exc, self.agent_files)}
        if value is None:
            return {'ok': True}
        try:
            return {'ok': True, 'value': to_json(value)}
        except NotJSONError as err:
            return {'ok': False, 'error': {'name': 'TypeError',
                                           'message': f'return value is not JSON-serialisable: {err}'}}

    async def warm_up(self):
        """Before `ready`: an init and two throwaway blocks (one returns, one
        raises) through the very functions real frames take, their frames
        dropped, so the first real block does not pay for first-time work
        (the first compile of each kind of node, the first traceback); then a
        fresh namespace. It also scans both roots once, which init reuses."""
        self.run_init({'type': 'init', 'session': None, 'limits': {}, 'files': []})
        returns = 'warm = [x + 1 for x in (1, 2)]\nprint(warm)\nreturn {"warm": warm, "text": json.dumps(warm)}'
        await self.run_exec({'type': 'exec', 'id': 'warm-up', 'code': returns})
        await self.run_exec({'type': 'exec', 'id': 'warm-up', 'code': 'raise ValueError("warm-up")'})
        self.limits = dict(DEFAULT_LIMITS)
        self.new_namespace()
        self.code_ran = False
        self.warmed_up = True


    def on_loop_error(self, loop, context):
        """The event loop's exception handler: a task nobody awaited failed, or
        a callback raised. Said to its block while that block runs; never
        fatal, and dropped for a block that has finished (as in runtime.js)."""
        block = scope.block_of(context.get('task') or context.get('future') or context.get('handle'))
        if block is None or block != scope.current():
            return
        error = context.get('exception')
        text = f'unhandled: {error!r}' if error is not None else str(context.get('message'))
        scope.run_as(block, self.sink.emit, 'error', text)


def main():
    # Frames are written to the real stdout's descriptor only; the agent's
    # print() goes to a captured sys.stdout. stdin is the host's: the agent's
    # input() reads an empty stream instead of stealing frames.
    stdin = sys.stdin.buffer
    stdout_fd = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray writes to fd 1 cannot corrupt frames
    output = channel.Output(stdout_fd)
    sys.dont_write_bytecode = True  # (runtime.py did already) a __pycache__ under /skills would be a file change
    # The runtime's own folder (runtime.py put it first) leaves the path: its
    # modules are loaded, and the test folder beside them is not the agent's
    # to import. /workspace is importable, after the standard library.
    runtime_dir = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != runtime_dir] + [ROOTS['workspace']]
    try:
        os.chdir(ROOTS['workspace'])  # relative paths in a block mean /workspace, as the image's WORKDIR
    except OSError:
        pass
    scope.install()

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    runtime = Runtime(loop, output)
    loop.set_exception_handler(runtime.on_loop_error)
    loop.set_task_factory(scope.task_factory)
    logs.install(runtime.sink)
    sys.stdout = logs.CapturedStream(runtime.sink, 'info', '<stdout>')
    sys.stderr = logs.CapturedStream(runtime.sink, 'error', '<stderr>')
    sys.stdin = io.StringIO()  # at its end already: input() raises EOFError

    # Frames that arrive before `ready` (the host waits for it; a plain
    # `docker run -i` with frames on stdin does not) queue behind the warm-up.
    reader = threading.Thread(target=channel.read_frames, args=(stdin, runtime.on_frame, runtime.on_end),
                              name='stdin reader', daemon=True)
    reader.start()
    loop.run_until_complete(runtime.serve())
