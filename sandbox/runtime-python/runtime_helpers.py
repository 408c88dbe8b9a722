"""The MCP helpers a block sees, and the `call` / `reply` frames behind them.

    await list_mcp_tools(query=None)
    await get_mcp_tool_details(name)
    await call_mcp_tool(name, args)          (alias callMCPTool)
    await read_mcp_resource(link_or_server, uri=None)   (alias readMCPResource)

A failed call raises MCPToolError with .code, .data and the message. A call
from a block that has finished (a left-over task or thread) fails at once
with code 'stale_call' and sends no frame, as the host would refuse it.

A call may come from any thread with an event loop of its own (asyncio.run
inside a block runs on one): its future belongs to the caller's loop. A
reply read on that loop settles it at once; one read elsewhere (the stdin
reader, the call socket's watch thread, or the runtime's loop for a call
from another loop) is handed to that loop thread-safely.
"""
import asyncio
import itertools
import threading

import runtime_channel as channel
import runtime_scope as scope
from runtime_serialize import MAX_VALUE_DEPTH, NotJSONError, nests_too_deep, to_json


class MCPToolError(Exception):
    """A helper call that failed: .code (the MCP error's code, or
    'stale_call' / 'bad_call' from the runtime), .data, and the message."""

    def __init__(self, message, code=None, data=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.data = data


class Calls:
    """The calls in flight, by id."""

    def __init__(self, output, frame_bytes):
        self._output = output
        self.frame_bytes = frame_bytes
        self._ids = itertools.count(1)
        self._pending = {}  # id -> (loop, future)
        self._lock = threading.Lock()

    async def call(self, op, fields):
        if not scope.live():
            raise MCPToolError('this call comes from a block that has already finished', code='stale_call')
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        with self._lock:
            call_id = next(self._ids)
            self._pending[call_id] = (loop, future)
        try:
            line = channel.dumps({'type': 'call', 'id': call_id, 'exec': scope.current(), 'op': op, **fields})
            if len(line) > self.frame_bytes:
                raise MCPToolError(f'this call is {len(line)} bytes; the limit is {self.frame_bytes}: send less',
                                   code='bad_call')
            self._output.send_line(line)
            return await future
        finally:
            with self._lock:
                self._pending.pop(call_id, None)

    def deliver(self, frame):
        """A `reply` frame (called on whichever thread read it)."""
        with self._lock:
            entry = self._pending.pop(frame.get('id'), None)
        if entry is None:
            return
        loop, future = entry
        # (asyncio._get_running_loop: the cheap form of get_running_loop that
        # returns None instead of raising; public since Python 3.7.)
        if asyncio._get_running_loop() is loop:
            _settle(future, frame)
            return
        try:
            loop.call_soon_threadsafe(_settle, future, frame)
        except RuntimeError:
            pass  # the caller's loop has closed: nobody waits for this any more


def _settle(future, frame):
    if future.done():  # the caller gave up (cancelled, timed out)
        return
    if frame.get('ok') is True:
        future.set_result(frame.get('result'))
        return
    error = frame.get('error') if isinstance(frame.get('error'), dict) else {}
    message = error.get('message') or 'tool call failed'
    future.set_exception(MCPToolError(str(message), code=error.get('code'), data=error.get('data')))


def make_helpers(calls):
    """The helper functions of one runtime, for a session's globals."""

    async def list_mcp_tools(query=None):
        """The tools this task may call: [{name, description, ...}]; `query`
        filters by words in their names and descriptions."""
        return await calls.call('list_tools', {'args': {} if query is None else {'query': str(query)}})

    async def get_mcp_tool_details(name):
        """One tool's full description, with its inputSchema."""
        return await calls.call('tool_details', {'name': str(name)})

    async def call_mcp_tool(name, args=None):
        """Calls tool `name` (server__tool) with `args` (a dict)."""
        args = {} if args is None else args
        if not isinstance(args, dict):
            raise MCPToolError(f'the arguments of {name} must be a dict, not {type(args).__name__}', code='bad_call')
        if nests_too_deep(args):
            raise MCPToolError(f'the arguments of {name} nest deeper than {MAX_VALUE_DEPTH} levels of lists and '
                               'dicts; send a flatter value', code='bad_call')
        try:
            plain = to_json(args, 'args')
        except NotJSONError as err:
            raise MCPToolError(f'the arguments of {name} are not JSON-serialisable: {err}', code='bad_call') from None
        return await calls.call('call_tool', {'name': str(name), 'args': plain})

    async def read_mcp_resource(link_or_server, uri=None):
        """read_mcp_resource(link) with a resource_link a tool returned (it
        names its server), or read_mcp_resource(server, uri)."""
        if isinstance(link_or_server, dict):
            server, uri = link_or_server.get('server'), link_or_server.get('uri')
        else:
            server = link_or_server
        return await calls.call('read_resource', {
            'name': '' if server is None else str(server), 'args': {'uri': '' if uri is None else str(uri)}})

    return {
        'list_mcp_tools': list_mcp_tools,
        'get_mcp_tool_details': get_mcp_tool_details,
        'call_mcp_tool': call_mcp_tool,
        'read_mcp_resource': read_mcp_resource,
        # The JavaScript runtime's names, so code and prompts written for it work.
        'callMCPTool': call_mcp_tool,
        'readMCPResource': read_mcp_resource,
        'MCPToolError': MCPToolError,
    }
