"""The MCP helpers: call/reply round trips, errors, concurrent calls, and
calls of a finished block (the real runtime.py as a child process)."""
import os
import threading
import time
import unittest

from support import RuntimeTest


def tools(frame):
    if frame['op'] == 'list_tools':
        return {'ok': True, 'result': [{'name': 'fs__read_file', 'description': f"q={frame['args'].get('query')}"}]}
    if frame['op'] == 'tool_details':
        return {'ok': True, 'result': {'name': frame['name'], 'inputSchema': {'type': 'object'}}}
    if frame['op'] == 'read_resource':
        return {'ok': True, 'result': {'uri': frame['args']['uri'], 'text': f"from {frame['name']}"}}
    if frame['name'] == 'fs__fail':
        return {'ok': False, 'error': {'code': -32602, 'message': 'bad path', 'data': {'path': '/x'}}}
    if frame['name'] == 'docs__find':
        return {'ok': True, 'result': {'type': 'resource_link', 'uri': 'test://a', 'name': 'A', 'server': 'docs'}}
    return {'ok': True, 'result': {'echoed': frame['args']}}


class HelperTest(RuntimeTest):
    def test_helpers_call_the_host_and_get_replies(self):
        rt = self.runtime(tools)
        done = rt.exec('\n'.join([
            'found = await list_mcp_tools("file")',
            'details = await get_mcp_tool_details(found[0]["name"])',
            'echoed = await call_mcp_tool("fs__echo", {"text": "hi"})',
            'same = await callMCPTool("fs__echo", {"text": "camel"})',
            'try:',
            '    await call_mcp_tool("fs__fail", {})',
            'except MCPToolError as e:',
            '    failure = {"name": type(e).__name__, "code": e.code, "message": str(e), "data": e.data}',
            'return {"found": found, "details": details, "echoed": echoed, "same": same, "failure": failure}',
        ]))
        value = self.assertOk(done)['value']
        self.assertEqual(value['found'][0]['description'], 'q=file')
        self.assertEqual(value['details']['name'], 'fs__read_file')
        self.assertEqual(value['echoed'], {'echoed': {'text': 'hi'}})
        self.assertEqual(value['same'], {'echoed': {'text': 'camel'}})
        self.assertEqual(value['failure'], {'name': 'MCPToolError', 'code': -32602, 'message': 'bad path',
                                            'data': {'path': '/x'}})
        self.assertEqual([c['op'] for c in done['calls']], ['list_tools', 'tool_details', 'call_tool', 'call_tool',
                                                            'call_tool'])
        self.assertTrue(all(c['exec'] == done['exec'] for c in done['calls']))

    def test_list_tools_without_a_query_sends_empty_args(self):
        rt = self.runtime(tools)
        done = self.assertOk(rt.exec('await list_mcp_tools()'))
        self.assertEqual(done['calls'][0]['args'], {})

    def test_an_uncaught_tool_error_fails_the_block_with_its_code(self):
        rt = self.runtime(tools)
        done = rt.exec('await call_mcp_tool("fs__fail", {"path": "/x"})')
        self.assertEqual(done['error']['name'], 'MCPToolError')
        self.assertEqual(done['error']['message'], 'bad path')
        self.assertIn('line 1, in <module>', done['error']['stack'])

    def test_read_mcp_resource_takes_a_resource_link_or_a_server_and_a_uri(self):
        rt = self.runtime(tools)
        done = rt.exec('link = await call_mcp_tool("docs__find", {})\n'
                       'return [await read_mcp_resource(link), await readMCPResource("other", "test://b")]')
        self.assertEqual(self.assertOk(done)['value'],
                         [{'uri': 'test://a', 'text': 'from docs'}, {'uri': 'test://b', 'text': 'from other'}])
        self.assertEqual([(c['op'], c['name'], c['args']) for c in done['calls']],
                         [('call_tool', 'docs__find', {}), ('read_resource', 'docs', {'uri': 'test://a'}),
                          ('read_resource', 'other', {'uri': 'test://b'})])

    def test_gathered_calls_are_all_in_flight_and_may_be_served_out_of_order(self):
        held = []
        all_in = threading.Event()

        def hold(frame):
            held.append(frame)
            if len(held) == 5:
                all_in.set()
            return None  # answered below, last first

        rt = self.runtime(hold)
        exec_id = rt.start('return await asyncio.gather(*(call_mcp_tool("t__echo", {"i": i}) for i in range(5)))')
        self.assertTrue(all_in.wait(20), 'all five calls were sent before any reply')
        for frame in reversed(held):
            rt.reply(frame['id'], {'ok': True, 'result': frame['args']['i']})
        self.assertEqual(self.assertOk(rt.wait_done(exec_id))['value'], [0, 1, 2, 3, 4])

    def test_arguments_that_cannot_travel_fail_the_call_without_a_frame(self):
        rt = self.runtime(tools)
        done = rt.exec('\n'.join([
            'v = 1',
            'for _ in range(300):',
            '    v = [v]',
            'codes = []',
            'for args in ({"v": v}, {"s": {1}}, ["not", "a", "dict"]):',
            '    try:',
            '        await call_mcp_tool("t__echo", args)',
            '    except MCPToolError as e:',
            '        codes.append([e.code, str(e)])',
            'return codes',
        ]))
        value = self.assertOk(done)['value']
        self.assertEqual([code for code, _ in value], ['bad_call'] * 3)
        self.assertIn('the arguments of t__echo nest deeper than 250 levels', value[0][1])
        self.assertIn('args.s is a set', value[1][1])
        self.assertIn('must be a dict', value[2][1])
        self.assertEqual(done['calls'], [])  # no frame went out
        fine = rt.exec('w = 1\nfor _ in range(200):\n    w = [w]\n'
                       'return len((await call_mcp_tool("t__echo", {"w": w}))["echoed"]["w"])')
        self.assertEqual(self.assertOk(fine)['value'], 1)

    def test_calls_from_a_thread_and_a_task_of_the_running_block_are_its_own(self):
        rt = self.runtime(lambda f: {'ok': True, 'result': f['args']['i']})
        done = rt.exec('\n'.join([
            'import threading',
            'out = {}',
            'def work():',
            '    print("from a thread of this block")',
            '    out["thread"] = asyncio.run(call_mcp_tool("t__echo", {"i": 1}))',
            't = threading.Thread(target=work)',
            't.start()',
            'await asyncio.to_thread(t.join)',
            'async def later():',
            '    print("from a task of this block")',
            '    return await call_mcp_tool("t__echo", {"i": 2})',
            'out["task"] = await asyncio.create_task(later())',
            'out["executor"] = await asyncio.get_running_loop().run_in_executor(None, lambda: print("pool") or 3)',
            'return out',
        ]))
        self.assertEqual(self.assertOk(done)['value'], {'thread': 1, 'task': 2, 'executor': 3})
        self.assertEqual([log['text'] for log in done['logs']],
                         ['from a thread of this block', 'from a task of this block', 'pool'])
        self.assertEqual(len(done['calls']), 2)


class StaleTest(RuntimeTest):
    def test_a_left_over_task_cannot_call_tools_or_print_into_the_next_block(self):
        calls = []
        rt = self.runtime(lambda f: calls.append(f) or {'ok': True, 'result': 'served'})
        self.assertOk(rt.exec('\n'.join([
            'go = asyncio.Event()',
            'late = {}',
            'async def left_over():',
            '    await go.wait()',
            '    print("late output")',
            '    try:',
            '        late["value"] = await call_mcp_tool("t__echo", {})',
            '    except MCPToolError as e:',
            '        late["error"] = {"name": type(e).__name__, "code": e.code, "message": str(e)}',
            'task = asyncio.create_task(left_over())',
        ])))
        second = self.assertOk(rt.exec('go.set()\nawait asyncio.wait([task])\nreturn late'))
        self.assertEqual(second['value'], {'error': {
            'name': 'MCPToolError', 'code': 'stale_call',
            'message': 'this call comes from a block that has already finished'}})
        self.assertEqual(second['logs'], [])
        self.assertEqual(calls, [], 'no call frame reached the host')
        self.assertEqual([f for f in rt.frames if f['type'] == 'log'], [], 'no log frame at all')

    def test_a_left_over_thread_cannot_call_tools_or_print_into_the_next_block(self):
        calls = []
        rt = self.runtime(lambda f: calls.append(f) or {'ok': True, 'result': 'served'})
        self.assertOk(rt.exec('\n'.join([
            'import threading, logging',
            'go = threading.Event()',
            'late = {}',
            'def left_over():',
            '    go.wait()',
            '    print("late output")',
            '    logging.warning("late warning")',
            '    try:',
            '        late["value"] = asyncio.run(call_mcp_tool("t__echo", {}))',
            '    except MCPToolError as e:',
            '        late["code"] = e.code',
            'thread = threading.Thread(target=left_over)',
            'thread.start()',
        ])))
        second = self.assertOk(rt.exec('go.set()\nthread.join()\nprint("mine")\nreturn late'))
        self.assertEqual(second['value'], {'code': 'stale_call'})
        self.assertEqual([log['text'] for log in second['logs']], ['mine'])
        self.assertEqual(calls, [])
        self.assertEqual([f['text'] for f in rt.frames if f['type'] == 'log'], ['mine'])


class CallSocketTest(RuntimeTest):
    def test_after_link_every_frame_travels_on_the_socket(self):
        rt = self.runtime(tools, ready=False)
        rt.ready()
        hello = rt.link(token='ab' * 16)
        self.assertEqual(hello, {'type': 'hello', 'token': 'ab' * 16})
        rt.init()
        done = rt.exec('print("over the socket")\nreturn await call_mcp_tool("t__echo", {"x": 1})')
        self.assertEqual(self.assertOk(done)['value'], {'echoed': {'x': 1}})
        self.assertEqual(done['logs'][0]['text'], 'over the socket')
        self.assertEqual([f['type'] for f in rt.stdout_frames], ['ready'], 'nothing but ready on stdout')
        # The host closing the socket stops the runtime, as closing stdin does.
        rt.close_socket()
        self.assertEqual(rt.wait_exit(), 0)

    def test_calls_get_their_replies_while_the_block_holds_the_loop(self):
        # The loop reads the socket; a block that holds it (a thread pool's
        # map, asyncio.run, time.sleep) leaves the reading to the watch thread.
        rt = self.runtime(lambda f: {'ok': True, 'result': f['args']['i'] * 10}, ready=False)
        rt.ready()
        rt.link()
        rt.init()
        done = rt.exec('\n'.join([
            'import concurrent.futures, threading, time',
            'def one(i):',
            '    return asyncio.run(call_mcp_tool("t__echo", {"i": i}))',
            'with concurrent.futures.ThreadPoolExecutor(4) as pool:',
            '    mapped = list(pool.map(one, range(8)))',
            'ran = asyncio.run(call_mcp_tool("t__echo", {"i": 9}))',
            'slept = []',
            't = threading.Thread(target=lambda: slept.append(one(10)))',
            't.start()',
            't.join()',  # the loop is held until the thread's call is answered
            'return {"mapped": mapped, "ran": ran, "slept": slept, "direct": await call_mcp_tool("t__echo", {"i": 11})}',
        ]))
        self.assertEqual(self.assertOk(done)['value'],
                         {'mapped': [i * 10 for i in range(8)], 'ran': 90, 'slept': [100], 'direct': 110})
        self.assertEqual(len(done['calls']), 11)
        self.assertEqual([f['type'] for f in rt.stdout_frames], ['ready'])

    def test_stop_ends_a_block_that_holds_the_loop(self):
        rt = self.runtime(tools, ready=False)
        rt.ready()
        rt.link()
        rt.init()
        rt.send({'type': 'exec', 'id': 'x1',
                 'code': 'import time\nopen("started", "w").close()\nwhile True:\n    time.sleep(0.01)'})
        started = os.path.join(rt.workspace, 'started')
        for _ in range(2000):  # the block holds the loop before stop is sent
            if os.path.exists(started):
                break
            time.sleep(0.01)
        rt.send({'type': 'stop'})
        self.assertEqual(rt.wait_exit(), 0)

    def test_a_socket_that_cannot_be_reached_leaves_frames_on_stdio(self):
        rt = self.runtime(tools, ready=False)
        rt.ready()
        rt.send({'type': 'link', 'socket': rt.dir + '/no-such.sock', 'token': 't'})
        rt.init()
        self.assertEqual(rt.exec('return 7')['value'], 7)
        rt.wait_stderr(b'call socket')


if __name__ == '__main__':
    unittest.main()
