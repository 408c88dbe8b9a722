"""How a block runs: results, return, state across blocks, errors, values
JSON cannot carry (the real runtime.py as a child process)."""
import importlib.util
import unittest

from support import RuntimeTest


class ResultTest(RuntimeTest):
    def test_return_gives_the_result(self):
        rt = self.runtime()
        done = self.assertOk(rt.exec('total = 1 + 1\nreturn {"sum": total}'))
        self.assertEqual(done['value'], {'sum': 2})

    def test_a_trailing_expression_is_the_result(self):
        rt = self.runtime()
        self.assertEqual(rt.exec('x = 20\nx * 2 + 2')['value'], 42)

    def test_return_wins_over_the_trailing_expression(self):
        rt = self.runtime()
        self.assertEqual(rt.exec('if True:\n    return "early"\n"late"')['value'], 'early')
        self.assertEqual(rt.exec('if False:\n    return "early"\n"late"')['value'], 'late')

    def test_a_block_without_a_value_has_none(self):
        rt = self.runtime()
        for code in ('x = 1', 'print("hi")', 'return None', ''):
            done = self.assertOk(rt.exec(code))
            self.assertNotIn('value', done, code)

    def test_top_level_await(self):
        rt = self.runtime()
        code = ('async def twice(x):\n'
                '    await asyncio.sleep(0)\n'
                '    return 2 * x\n'
                'a = await twice(3)\n'
                'b = await asyncio.gather(twice(1), twice(2))\n'
                'return [a, b]')
        self.assertEqual(self.assertOk(rt.exec(code))['value'], [6, [2, 4]])

    def test_return_inside_with_and_try_is_a_real_return(self):
        # A return is no exception: a bare except does not catch it and a
        # context manager sees a normal exit (sqlite3 commits).
        rt = self.runtime()
        code = ('import sqlite3\n'
                'db = sqlite3.connect(":memory:")\n'
                'db.execute("create table t (x)")\n'
                'try:\n'
                '    with db:\n'
                '        db.execute("insert into t values (1)")\n'
                '        return "returned"\n'
                'except:\n'
                '    return "caught"\n')
        self.assertEqual(rt.exec(code)['value'], 'returned')
        self.assertEqual(rt.exec('db.execute("select count(*) from t").fetchone()[0]')['value'], 1)

    def test_asyncio_run_works_inside_a_block(self):
        # Models write asyncio.run(main()) out of habit.
        rt = self.runtime()
        code = ('async def main():\n'
                '    await asyncio.sleep(0)\n'
                '    return "ran"\n'
                'if __name__ == "__main__":\n'
                '    result = asyncio.run(main())\n'
                'result')
        self.assertEqual(self.assertOk(rt.exec(code))['value'], 'ran')


class StateTest(RuntimeTest):
    def test_variables_imports_functions_and_classes_persist(self):
        rt = self.runtime()
        first = rt.exec('\n'.join([
            'total: int = 40',
            'import statistics',
            'from collections import Counter as C',
            'a, (b, second) = 1, (0, 2)',
            'def add(x, y):',
            '    return x + y',
            'class Counter:',
            '    def __init__(self):',
            '        self.n = 0',
            '    def inc(self):',
            '        self.n += 1',
            '        return self.n',
            'for i in range(3):',
            '    last = i',
            'squares = [n * n for n in range(3)]',
            'if (found := 7) > 0:',
            '    pass',
            'return "defined"',
        ]))
        self.assertOk(first)
        second = rt.exec('c = Counter(); c.inc()\n'
                         'return [add(total, second), a, c.inc(), statistics.mean([1, 3]), C("aab")["a"], last, '
                         'squares, found]')
        self.assertEqual(self.assertOk(second)['value'], [42, 1, 2, 2, 2, 2, [0, 1, 4], 7])
        # Redefining in a later block is allowed, as in a notebook.
        self.assertEqual(rt.exec('total = 1\ntotal + second')['value'], 3)

    def test_names_bound_before_an_error_survive_it(self):
        rt = self.runtime()
        self.assertFalse(rt.exec('kept = "yes"\nraise RuntimeError("late")')['ok'])
        self.assertEqual(rt.exec('kept')['value'], 'yes')

    def test_locals_dir_and_star_imports_see_the_globals(self):
        rt = self.runtime()
        self.assertOk(rt.exec('from math import *\nseen = "seen"'))
        done = rt.exec('exec("made = 1")\n'
                       'return ["seen" in locals(), "seen" in dir(), "seen" in globals(), round(floor(pi)), made]')
        self.assertEqual(self.assertOk(done)['value'], [True, True, True, 3, 1])
        # Python reads identifiers in their NFKC form: full-width letters name locals() too.
        self.assertEqual(self.assertOk(rt.exec('return "seen" in \uff4c\uff4f\uff43\uff41\uff4c\uff53()'))['value'],
                         True)

    def test_a_new_init_starts_a_fresh_namespace(self):
        rt = self.runtime()
        self.assertOk(rt.exec('x = 1'))
        rt.init()
        done = rt.exec('return "x" in globals()')
        self.assertEqual(done['value'], False)


class ErrorTest(RuntimeTest):
    def test_errors_carry_name_message_and_a_stack_of_the_agent_code_only(self):
        rt = self.runtime()
        done = rt.exec('import json\ndef inner():\n    json.loads("{")\n\ninner()')
        self.assertFalse(done['ok'])
        error = done['error']
        self.assertEqual(error['name'], 'JSONDecodeError')
        self.assertIn('Expecting property name', error['message'])
        lines = error['stack'].split('\n')
        self.assertEqual(lines[0], 'Traceback (most recent call last):')
        files = [line for line in lines if line.startswith('  File ')]
        self.assertEqual(files, ['  File "agent-code.py", line 5, in <module>',
                                 '  File "agent-code.py", line 3, in inner'])
        self.assertNotIn('json/decoder.py', error['stack'])
        self.assertTrue(lines[-1].startswith('json.decoder.JSONDecodeError: Expecting'))

    def test_a_function_from_an_earlier_block_says_so_in_the_stack(self):
        rt = self.runtime()
        self.assertOk(rt.exec('def boom():\n    raise KeyError("k")'))
        done = rt.exec('x = 1\nboom()')
        self.assertIn('  File "agent-code.py", line 2, in <module>', done['error']['stack'])
        self.assertIn('  File "agent-code.py" (an earlier block), line 2, in boom', done['error']['stack'])

    def test_syntax_errors_point_at_the_line(self):
        rt = self.runtime()
        done = rt.exec('x = 1\nreturn (;')
        self.assertEqual(done['error']['name'], 'SyntaxError')
        self.assertIn('agent-code.py, line 2', done['error']['message'])
        self.assertIn('return (;', done['error']['stack'])
        self.assertEqual(rt.exec('yield 1')['error']['message'], "'yield' outside function (agent-code.py, line 1)")

    def test_sys_exit_ends_the_block_not_the_runtime(self):
        rt = self.runtime()
        done = rt.exec('import sys\nsys.exit(3)')
        self.assertEqual(done['error']['name'], 'SystemExit')
        self.assertEqual(rt.exec('"alive"')['value'], 'alive')

    def test_a_failed_task_nobody_awaited_is_logged_in_its_block_and_never_fatal(self):
        rt = self.runtime()
        own = rt.exec('import gc\nasync def fail():\n    raise ValueError("nobody waits")\n'
                      't = asyncio.ensure_future(fail())\nawait asyncio.sleep(0)\ndel t\ngc.collect()')
        self.assertEqual([log['text'] for log in self.assertOk(own)['logs']], ["unhandled: ValueError('nobody waits')"])
        # One left by an earlier block and collected in a later one: dropped.
        self.assertOk(rt.exec('left = asyncio.ensure_future(fail())\nawait asyncio.sleep(0)'))
        later = self.assertOk(rt.exec('del left\ngc.collect()'))
        self.assertEqual(later['logs'], [])
        self.assertEqual(rt.exec('"alive"')['value'], 'alive')


class ValueTest(RuntimeTest):
    def test_a_value_json_cannot_carry_is_a_type_error_naming_its_path(self):
        rt = self.runtime()
        cases = [
            ('return {"rows": [1, 2, 3, {4}]}', 'value.rows[3] is a set'),
            ('return {"data": b"x"}', 'value.data is bytes'),
            ('return [1, float("nan")]', 'value[1] is nan'),
            ('o = {}\no["self"] = o\nreturn o', 'value.self is circular'),
            ('class Point:\n    pass\nreturn {"p": Point()}', 'value.p is a Point object'),
            ('return {"f": len}', 'value.f is a function'),
            ('async def f():\n    return 1\nreturn f()', 'value is a coroutine; await it first'),
            ('return {(1, 2): "tuple key"}', "value has the key (1, 2), a tuple"),
        ]
        for code, fragment in cases:
            done = rt.exec(code)
            self.assertFalse(done['ok'], code)
            self.assertEqual(done['error']['name'], 'TypeError', code)
            self.assertIn(f'not JSON-serialisable: {fragment}', done['error']['message'], code)

    def test_values_json_can_carry_are_converted(self):
        rt = self.runtime()
        done = rt.exec('import datetime\nreturn {"t": (1, 2), "when": datetime.date(2024, 1, 2), 3: "three", '
                       '"nested": {"ok": [True, None, 1.5]}}')
        self.assertEqual(self.assertOk(done)['value'],
                         {'t': [1, 2], 'when': '2024-01-02', '3': 'three', 'nested': {'ok': [True, None, 1.5]}})

    def test_numpy_values_become_numbers_and_pandas_frames_get_a_hint(self):
        # The sandbox image has Debian's numpy and pandas (sandbox/build-python-files.sh).
        if not all(importlib.util.find_spec(name) for name in ('numpy', 'pandas')):
            self.skipTest('numpy and pandas are not installed for /usr/bin/python3')
        rt = self.runtime()
        done = rt.exec('import numpy as np, pandas as pd\n'
                       'df = pd.DataFrame({"x": [1, 2, 3]})\n'
                       'return {"sum": df["x"].sum(), "mean": df["x"].mean(), "arr": np.arange(3), "ok": np.bool_(1)}')
        self.assertEqual(self.assertOk(done)['value'], {'sum': 6, 'mean': 2.0, 'arr': [0, 1, 2], 'ok': True})
        frame = rt.exec('df')
        self.assertIn("value is a pandas DataFrame; return df.to_dict(orient='records') instead",
                      frame['error']['message'])

    def test_values_nested_too_deep_for_a_frame_are_refused(self):
        # The host refuses frames nested past 256 levels and gives up the
        # sandbox; the runtime refuses such values itself, with a message.
        rt = self.runtime()
        done = rt.exec('v = 1\nfor _ in range(300):\n    v = [v]\nreturn {"v": v}')
        self.assertFalse(done['ok'])
        self.assertRegex(done['error']['message'],
                         r'not JSON-serialisable: value\.v(\[0\])+ nests deeper than 250 levels')
        fine = rt.exec('w = 1\nfor _ in range(200):\n    w = [w]\nreturn w')
        self.assertOk(fine)

    def test_a_result_over_the_frame_cap_is_an_error(self):
        rt = self.runtime(init={'limits': {'frameBytes': 1000}})
        done = rt.exec('return "x" * 2000')
        self.assertFalse(done['ok'])
        self.assertIn('the limit is 1000', done['error']['message'])


if __name__ == '__main__':
    unittest.main()
