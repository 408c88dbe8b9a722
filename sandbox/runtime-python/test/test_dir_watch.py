"""The file tracker with a DirWatch (runtime_dir_watch.py): a report walks
the roots only when an inotify event said something may have changed, and
misses nothing a block wrote (the twin of the DirWatch tests in
sandbox/runtime/test/files.test.js)."""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from runtime_dir_watch import MAX_WATCHED_DIRS, DirWatch  # noqa: E402
from runtime_files import FileTracker  # noqa: E402
from support import RuntimeTest  # noqa: E402


class WatchedTrackerTest(unittest.TestCase):
    def setUp(self):
        base = tempfile.mkdtemp(prefix='dir-watch-test-')
        self.addCleanup(shutil.rmtree, base, True)
        self.roots = {'skills': os.path.join(base, 'skills'), 'workspace': os.path.join(base, 'workspace')}
        for folder in self.roots.values():
            os.mkdir(folder)

    def watched(self, limits=None):
        self.watch = DirWatch()
        self.assertFalse(self.watch.broken, 'inotify works here')
        self.tracker = FileTracker(self.roots, limits or {'maxFileBytes': 1000, 'maxFiles': 50}, self.watch)
        self.walks = 0
        scan = self.tracker.scan

        def counted():
            self.walks += 1
            return scan()

        self.tracker.scan = counted
        self.tracker.write_initial([])

    def report(self):
        return sorted(f"{c['op']} {c['root']}/{c['path']}" for c in self.tracker.changes())

    def path(self, root, *parts):
        return os.path.join(self.roots[root], *parts)

    def write(self, full, data='x'):
        with open(full, 'w') as out:
            out.write(data)

    def test_a_block_that_touched_no_file_costs_no_walk_and_one_that_did_is_reported_in_full(self):
        self.watched()
        self.assertEqual(self.report(), [])
        before = self.walks
        self.assertEqual(self.report(), [])
        self.assertEqual(self.walks, before, 'nothing changed: no walk')

        self.write(self.path('workspace', 'a.txt'), 'a')
        self.assertEqual(self.report(), ['write workspace/a.txt'])
        # A new nested folder, then a write into it in the next block: its watch was added.
        os.makedirs(self.path('skills', 'tool', 'lib'))
        self.write(self.path('skills', 'tool', 'lib', 'x.py'), '1')
        self.assertEqual(self.report(), ['write skills/tool/lib/x.py'])
        self.write(self.path('skills', 'tool', 'lib', 'x.py'), '22')
        self.assertEqual(self.report(), ['write skills/tool/lib/x.py'])
        shutil.rmtree(self.path('skills', 'tool'))
        os.unlink(self.path('workspace', 'a.txt'))
        self.assertEqual(self.report(), ['delete skills/tool/lib/x.py', 'delete workspace/a.txt'])
        after = self.walks
        self.assertEqual(self.report(), [])
        self.assertEqual(self.walks, after)

    def test_renames_and_symlinks_are_events_too(self):
        self.watched()
        self.write(self.path('workspace', 'a.txt'))
        self.report()
        os.rename(self.path('workspace', 'a.txt'), self.path('workspace', 'b.txt'))
        self.assertEqual(self.report(), ['delete workspace/a.txt', 'write workspace/b.txt'])
        os.symlink('/etc/passwd', self.path('workspace', 'link'))
        self.assertEqual(self.report(), ['symlink workspace/link'])

    def test_a_folder_removed_and_made_again_at_the_same_path_is_watched_again(self):
        self.watched()
        os.mkdir(self.path('workspace', 'out'))
        self.write(self.path('workspace', 'out', 'a.txt'))
        self.assertEqual(self.report(), ['write workspace/out/a.txt'])
        shutil.rmtree(self.path('workspace', 'out'))
        os.mkdir(self.path('workspace', 'out'))
        self.write(self.path('workspace', 'out', 'b.txt'))
        self.assertEqual(self.report(), ['delete workspace/out/a.txt', 'write workspace/out/b.txt'])
        self.write(self.path('workspace', 'out', 'c.txt'))
        self.assertEqual(self.report(), ['write workspace/out/c.txt'], 'the new folder has a watch of its own')

    def test_files_left_for_the_next_report_are_reported_without_any_new_event(self):
        self.watched({'maxFileBytes': 1000, 'maxFiles': 10, 'reportBytes': 700})
        for name in ('a.bin', 'b.bin'):
            self.write(self.path('workspace', name), 'z' * 600)
        self.assertEqual(len(self.report()), 1)
        self.assertEqual(len(self.report()), 1, 'the deferred file comes in the next report')
        self.assertEqual(self.report(), [])

    def test_the_runtimes_own_writes_before_any_block_leave_the_tree_clean_and_later_ones_do_not(self):
        self.watched()
        self.report()
        self.tracker.write_known([{'root': 'skills', 'path': 'examples/demo/SKILL.md', 'content': 'shared'}], True)
        self.assertTrue(self.watch.clean(), "the pool's put before any block")
        self.write(self.path('skills', 'examples', 'demo', 'SKILL.md'), 'edited by code')
        self.assertEqual(self.report(), ['write skills/examples/demo/SKILL.md'], 'the new folder is watched')
        self.tracker.write_known([{'root': 'workspace', 'path': 'obs/turn-1.txt', 'content': 'full text'}], False)
        self.assertFalse(self.watch.clean(), "a put between blocks may race a block's late write: walk next time")
        self.assertEqual(self.report(), [], 'the put itself is not a change')

    def test_a_walk_that_failed_leaves_the_tree_to_be_walked_again(self):
        self.watched()
        self.write(self.path('workspace', 'a.txt'))
        scan = self.tracker.scan

        def failing():
            self.tracker.scan = scan
            raise RecursionError('a tree too deep')

        self.tracker.scan = failing
        with self.assertRaises(RecursionError):
            self.tracker.changes()
        self.assertEqual(self.report(), ['write workspace/a.txt'])

    def test_a_root_made_after_the_first_walk_is_walked_until_it_is_there(self):
        shutil.rmtree(self.roots['skills'])
        self.watched()
        self.assertEqual(self.report(), [])
        os.mkdir(self.roots['skills'])
        self.write(self.path('skills', 'late.md'))
        self.assertEqual(self.report(), ['write skills/late.md'])
        before = self.walks
        self.assertEqual(self.report(), [])
        self.assertEqual(self.walks, before, 'both roots are watched now')

    def test_a_tree_past_the_walks_budget_is_walked_after_every_block(self):
        self.watched({'maxFileBytes': 1000, 'maxFiles': 2})  # a walk stops after 8 files
        for i in range(10):
            self.write(self.path('workspace', f'f{i}.txt'))
        self.report()
        before = self.walks
        self.report()
        self.assertEqual(self.walks, before + 1, 'folders past the cut have no watch')

    def test_past_the_watch_limit_every_report_walks_the_roots(self):
        self.watched()
        for i in range(MAX_WATCHED_DIRS + 1):
            os.mkdir(self.path('workspace', f'd{i}'))
        self.assertEqual(self.report(), [])
        self.assertTrue(self.watch.broken)
        before = self.walks
        self.assertEqual(self.report(), [])
        self.assertEqual(self.walks, before + 1)
        self.write(self.path('workspace', 'd7', 'late.txt'))
        self.assertEqual(self.report(), ['write workspace/d7/late.txt'])


class WatchedRuntimeTest(RuntimeTest):
    def test_a_write_by_a_thread_a_block_left_running_is_reported_by_the_next_block(self):
        rt = self.runtime()
        started = rt.exec('\n'.join([
            'import threading',
            'go = threading.Event()',
            'def later():',
            '    go.wait()',
            '    with open("late.txt", "w") as out:',
            '        out.write("written after its block")',
            'writer = threading.Thread(target=later)',
            'writer.start()',
        ]))
        self.assertEqual(self.assertOk(started)['files'], [])
        self.assertEqual(self.assertOk(rt.exec('return 1'))['files'], [], 'nothing written yet: a block with no walk')
        # The thread writes during this block or after its report: either
        # this report or the next one has the file, exactly once.
        second = self.assertOk(rt.exec('go.set()\nreturn 2'))['files']
        third = self.assertOk(rt.exec('writer.join()\nreturn 3'))['files']
        self.assertEqual([(f['path'], f['op']) for f in second + third], [('late.txt', 'write')])

if __name__ == '__main__':
    unittest.main()
