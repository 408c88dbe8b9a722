"""Which block a piece of code belongs to.

Every block runs in a task whose context holds its exec id (a ContextVar).
asyncio tasks copy the context of the code that creates them, so a task left
running by block x1 still says x1 while x2 runs: its output and tool calls
are refused as stale instead of being taken for x2's (the twin of the
AsyncLocalStorage scope in runtime.js).

Python 3.11 threads do not inherit the creator's context, so install()
patches threading.Thread.start and ThreadPoolExecutor.submit to carry it,
and asyncio.run so that a block may call it (the block already runs on an
event loop; the call gets a thread and a loop of its own).
"""
import asyncio
import concurrent.futures
import contextvars
import threading

_block = contextvars.ContextVar('harness_block', default=None)
_current = None  # the exec id of the block running now, or None between blocks


def enter(exec_id):
    """Marks `exec_id` as the running block. Returns a context for its task."""
    global _current
    _current = exec_id
    context = contextvars.copy_context()
    context.run(_block.set, exec_id)
    return context


def run_as(exec_id, fn, *args):
    """Runs fn(*args) as code of block `exec_id` (the runtime's own words to
    a block, such as a failed task it left, go through the block's output)."""
    context = contextvars.copy_context()
    context.run(_block.set, exec_id)
    return context.run(fn, *args)


def leave():
    global _current
    _current = None


def current():
    return _current


class BlockTask(asyncio.Task):
    """A task of the runtime's loop that knows its block: when it fails and
    nobody awaited it, the loop's exception handler says so to that block
    only (Python 3.11's C tasks do not show their context)."""

    def __init__(self, coro, *, loop=None, name=None, context=None):
        super().__init__(coro, loop=loop, name=name, context=context)
        self.block = context.get(_block) if context is not None else _block.get()


def task_factory(loop, coro, context=None):
    return BlockTask(coro, loop=loop, context=context)


def block_of(source):
    """The block a task or a callback handle of the loop belongs to, or None."""
    if isinstance(source, BlockTask):
        return source.block
    context = getattr(source, '_context', None)  # asyncio.Handle keeps the context it runs in
    return context.get(_block) if context is not None else None


def live():
    """True when the calling code belongs to the block that is running now."""
    return _current is not None and _block.get() == _current


def install():
    """Makes threads, thread pools and asyncio.run keep the block's context."""
    original_start = threading.Thread.start

    def start(self):
        # Captured in the creating thread, entered in the new one.
        context = contextvars.copy_context()
        run = self.run
        self.run = lambda: context.run(run)
        original_start(self)

    threading.Thread.start = start

    original_submit = concurrent.futures.ThreadPoolExecutor.submit

    def submit(self, fn, /, *args, **kwargs):
        # A pool's worker threads outlive blocks: each job takes the context
        # of the code that submitted it (as asyncio.to_thread does), not the
        # one of whichever block happened to start the worker.
        context = contextvars.copy_context()
        return original_submit(self, context.run, fn, *args, **kwargs)

    concurrent.futures.ThreadPoolExecutor.submit = submit

    original_run = asyncio.run

    def run(main, *, debug=None):
        # Models write `asyncio.run(main())` out of habit. Inside a block there
        # is a running loop already, where asyncio.run refuses to start; so it
        # runs on a thread of its own (in the block's context), and the block
        # waits for it. Tool replies do not need the block's loop: they are
        # delivered by the reader thread (Calls.deliver in runtime_helpers.py).
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return original_run(main, debug=debug)
        outcome = {}

        def target():
            try:
                outcome['value'] = original_run(main, debug=debug)
            except BaseException as exc:  # handed to the caller below
                outcome['error'] = exc

        thread = threading.Thread(target=target, name='asyncio.run in a block')
        thread.start()
        thread.join()
        if 'error' in outcome:
            raise outcome['error']
        return outcome.get('value')

    asyncio.run = run
