"""Shared set-up of the runtime tests: a runtime that is ready and has had
its `init`, closed after the test whatever happens."""
import unittest

from runtime_client import RuntimeClient


class RuntimeTest(unittest.TestCase):
    def runtime(self, on_call=None, init=None, ready=True):
        """A RuntimeClient, ready and initialised unless told otherwise."""
        rt = RuntimeClient(on_call)
        self.addCleanup(rt.close)
        if ready:
            rt.ready()
            rt.init(**(init or {}))
        return rt

    def assertOk(self, done):
        self.assertTrue(done['ok'], done.get('error'))
        return done
