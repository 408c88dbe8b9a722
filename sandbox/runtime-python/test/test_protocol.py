"""The runtime's life: ready, frames before ready, output capture and its
cap, lines that are not frames, stop (the real runtime.py as a child process)."""
import unittest

from support import RuntimeTest


class LifeTest(RuntimeTest):
    def test_says_ready_with_its_pid_and_python_version(self):
        rt = self.runtime(ready=False)
        ready = rt.ready()
        self.assertEqual(ready['pid'], rt.child.pid)
        self.assertRegex(ready['python'], r'^3\.\d+\.\d+$')

    def test_frames_sent_before_ready_wait_for_the_warm_up_which_sends_nothing_of_its_own(self):
        rt = self.runtime(ready=False)
        rt.init()  # at once, as `docker run -i` with frames on stdin does
        done = rt.exec('return [1 + 1, "warm" in globals()]')
        self.assertEqual(self.assertOk(done)['value'], [2, False])  # nothing of the warm-up's blocks is left
        self.assertEqual([f['type'] for f in rt.frames], ['ready', 'done'])

    def test_lines_that_are_not_json_are_ignored_and_stop_ends_the_process(self):
        rt = self.runtime(ready=False)
        rt.ready()
        rt.send_raw('this is not json\n[1, 2]\n')
        rt.init()
        self.assertEqual(rt.exec('return 7')['value'], 7)
        rt.send({'type': 'stop'})
        self.assertEqual(rt.wait_exit(), 0)
        rt.wait_stderr(b'not JSON')  # read by a thread of the client's: it may come after the exit

    def test_closing_stdin_ends_the_process_after_the_frames_already_sent(self):
        rt = self.runtime()
        exec_id = rt.start('return "last"')
        rt.child.stdin.close()
        self.assertEqual(rt.wait_done(exec_id)['value'], 'last')
        self.assertEqual(rt.wait_exit(), 0)

    def test_input_reads_nothing_instead_of_the_hosts_frames(self):
        rt = self.runtime()
        done = rt.exec('try:\n    input()\nexcept EOFError:\n    return "eof"')
        self.assertEqual(done['value'], 'eof')


class OutputTest(RuntimeTest):
    def test_print_logging_and_warnings_become_log_frames(self):
        rt = self.runtime()
        done = rt.exec('\n'.join([
            'import logging, sys, warnings',
            'print("a", {"b": 1})',
            'print("no newline", end="")',
            'print(" yet")',
            'print("bad", file=sys.stderr)',
            'logging.debug("dbg")',
            'logging.getLogger("mine").info("inf")',
            'logging.warning("wrn")',
            'logging.error("err")',
            'warnings.warn("careful")',
            'sys.stdout.reconfigure(encoding="utf-8")',
            'sys.stdout.buffer.write("bytes \u00e9\\n".encode())',
            'print("unfinished", end="")',
        ]))
        self.assertOk(done)
        texts = [f"{log['level']}:{log['text']}" for log in done['logs']]
        self.assertEqual(texts[:8], ["info:a {'b': 1}", 'info:no newline yet', 'error:bad', 'debug:dbg',
                                     'info:inf', 'warn:wrn', 'error:err', texts[7]])
        self.assertTrue(texts[7].startswith('warn:') and 'UserWarning: careful' in texts[7], texts[7])
        self.assertEqual(texts[8:], ['info:bytes \u00e9', 'info:unfinished'])  # the last one when the block ends

    def test_output_is_capped_per_block(self):
        rt = self.runtime(init={'limits': {'logBytes': 50}})
        done = rt.exec('print("a")\nprint("x" * 100)\nprint("after the cap")\nreturn 1')
        self.assertOk(done)
        self.assertEqual(done['logs'][0]['text'], 'a')
        self.assertEqual(done['logs'][-1], {'type': 'log', 'exec': done['exec'], 'level': 'warn',
                                            'text': '[log output truncated at 50 bytes]'})
        self.assertLessEqual(sum(len(log['text'].encode()) for log in done['logs'][:-1]), 50)
        self.assertNotIn('after the cap', [log['text'] for log in done['logs']])
        # The cap is per block: the next block logs again.
        self.assertEqual(rt.exec('print("again")')['logs'][0]['text'], 'again')


if __name__ == '__main__':
    unittest.main()
