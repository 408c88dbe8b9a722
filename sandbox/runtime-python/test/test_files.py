"""Files: init and put writes, change reports after each block, and skills
as Python packages (the real runtime.py as a child process)."""
import base64
import os
import shutil
import sys
import unittest

from support import RuntimeTest


def b64(text):
    return base64.b64encode(text.encode()).decode()


class InitAndPutTest(RuntimeTest):
    def test_init_files_land_in_skills_and_workspace_and_are_no_change(self):
        files = [{'root': 'skills', 'path': 'notes/SKILL.md', 'content': '---\nname: notes\n---\n'},
                 {'root': 'workspace', 'path': 'data/in.txt', 'content': b64('hello'), 'encoding': 'base64'}]
        rt = self.runtime(init={'files': files})
        done = rt.exec(f'return [open({rt.workspace + "/data/in.txt"!r}).read(), open("data/in.txt").read()]')
        self.assertEqual(self.assertOk(done)['value'], ['hello', 'hello'])  # relative paths are in /workspace
        self.assertEqual(done['files'], [])

    def test_files_put_before_init_and_inits_own_are_on_disk_and_only_real_changes_are_reported(self):
        rt = self.runtime(ready=False)
        rt.ready()
        rt.send({'type': 'put', 'id': 'prime', 'files': [
            {'root': 'skills', 'path': 'examples/demo/SKILL.md', 'content': 'shared'}]})
        primed = rt.next(lambda f: f['type'] == 'done' and f['exec'] == 'prime')
        self.assertEqual(primed, {'type': 'done', 'exec': 'prime', 'ok': True, 'files': []})
        rt.init(files=[{'root': 'skills', 'path': 'mine/__init__.py', 'content': 'x = 1'}])
        read = rt.exec(f'return [open({rt.skills + "/examples/demo/SKILL.md"!r}).read(), '
                       f'open({rt.skills + "/mine/__init__.py"!r}).read()]')
        self.assertEqual(self.assertOk(read)['value'], ['shared', 'x = 1'])
        self.assertEqual(read['files'], [], 'neither the put nor the init files count as changes')
        edit = rt.exec(f'open({rt.skills + "/examples/demo/SKILL.md"!r}, "w").write("edited")\n'
                       f'open({rt.skills + "/mine/__init__.py"!r}, "w").write("x = 2")')
        self.assertEqual(sorted(f['path'] for f in edit['files']), ['examples/demo/SKILL.md', 'mine/__init__.py'])

    def test_put_between_blocks_is_no_change_and_refuses_paths_outside_the_root(self):
        rt = self.runtime()
        # The block takes the name `open` for itself: put does not care.
        self.assertOk(rt.exec('open = None'))
        rt.send({'type': 'put', 'id': 'p1', 'files': [
            {'root': 'workspace', 'path': 'observations/turn-1.txt', 'content': b64('full text'),
             'encoding': 'base64'}]})
        self.assertTrue(rt.next(lambda f: f['type'] == 'done' and f['exec'] == 'p1')['ok'])
        read = rt.exec('del open\nreturn open("observations/turn-1.txt").read()')
        self.assertEqual(self.assertOk(read)['value'], 'full text')
        self.assertEqual(read['files'], [], 'a file the host put is not reported back as a change')
        rt.send({'type': 'put', 'id': 'p2', 'files': [{'root': 'workspace', 'path': '../escape.txt', 'content': ''}]})
        refused = rt.next(lambda f: f['type'] == 'done' and f['exec'] == 'p2')
        self.assertFalse(refused['ok'])
        self.assertEqual(refused['error']['name'], 'PutError')
        self.assertIn('escapes workspace', refused['error']['message'])


class ChangeReportTest(RuntimeTest):
    def test_writes_deletes_and_symlinks_are_reported_once(self):
        rt = self.runtime(init={'files': [{'root': 'workspace', 'path': 'old.txt', 'content': 'old'}]})
        done = rt.exec('\n'.join([
            'import os',
            f'os.makedirs({rt.skills + "/greet"!r})',
            f'open({rt.skills + "/greet/SKILL.md"!r}, "w").write("---\\nname: greet\\n---\\n")',
            'os.remove("old.txt")',
            'os.symlink("/etc/passwd", "link")',
            'os.makedirs("sub")',
            'os.symlink("/etc", "sub/dirlink")',
        ]))
        self.assertOk(done)
        by_path = {f"{f['root']}/{f['path']}": f for f in done['files']}
        self.assertEqual(sorted(by_path), ['skills/greet/SKILL.md', 'workspace/link', 'workspace/old.txt',
                                           'workspace/sub/dirlink'])
        skill = by_path['skills/greet/SKILL.md']
        self.assertEqual((skill['op'], skill['size']), ('write', 20))
        self.assertEqual(base64.b64decode(skill['content']).decode(), '---\nname: greet\n---\n')
        self.assertEqual(by_path['workspace/old.txt'], {'root': 'workspace', 'path': 'old.txt', 'op': 'delete'})
        self.assertEqual(by_path['workspace/link'],
                         {'root': 'workspace', 'path': 'link', 'op': 'symlink', 'target': '/etc/passwd'})
        self.assertEqual(by_path['workspace/sub/dirlink']['op'], 'symlink')  # not followed into /etc
        self.assertEqual(rt.exec('return 1')['files'], [])

    def test_a_file_rewritten_with_the_same_content_is_no_change(self):
        rt = self.runtime(init={'files': [{'root': 'workspace', 'path': 'same.txt', 'content': 'same'}]})
        done = rt.exec('import os\nopen("same.txt", "w").write("same")\nos.utime("same.txt", ns=(1, 1))')
        self.assertEqual(done['files'], [])

    def test_an_oversized_file_is_reported_without_its_content(self):
        rt = self.runtime(init={'limits': {'maxFileBytes': 10}})
        done = rt.exec('open("big.bin", "w").write("x" * 11)')
        self.assertEqual(done['files'], [{'root': 'workspace', 'path': 'big.bin', 'op': 'write', 'size': 11,
                                          'tooLarge': True}])

    def test_imports_write_no_bytecode_into_the_roots(self):
        rt = self.runtime()
        self.assertOk(rt.exec('open("mymod.py", "w").write("VALUE = 5")'))
        done = rt.exec('import mymod\nmymod.VALUE')
        self.assertEqual(self.assertOk(done)['value'], 5)
        self.assertEqual(done['files'], [])
        self.assertFalse(os.path.exists(os.path.join(rt.workspace, '__pycache__')))


class FileTrackerTest(unittest.TestCase):
    """runtime_files on its own: what one report carries, and what waits."""

    def setUp(self):
        import tempfile
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.addCleanup(sys.path.pop, 0)
        from runtime_files import FileTracker
        base = tempfile.mkdtemp(prefix='files-test-')
        self.addCleanup(shutil.rmtree, base, True)
        self.roots = {'skills': os.path.join(base, 'skills'), 'workspace': os.path.join(base, 'workspace')}
        for folder in self.roots.values():
            os.mkdir(folder)
        self.FileTracker = FileTracker

    def test_files_past_the_report_budget_wait_for_the_next_report_instead_of_being_lost(self):
        tracker = self.FileTracker(self.roots, {'maxFileBytes': 1000, 'maxFiles': 10, 'reportBytes': 1500})
        tracker.write_initial([])
        for name in ('a.bin', 'b.bin', 'c.bin'):
            with open(os.path.join(self.roots['workspace'], name), 'wb') as out:
                out.write(b'\1' * 600)
        first = tracker.changes()
        self.assertEqual(len(first), 2)
        self.assertTrue(all(c['op'] == 'write' and c['content'] for c in first))
        second = tracker.changes()
        self.assertEqual(len(second), 1)
        self.assertNotIn(second[0]['path'], [c['path'] for c in first])
        self.assertEqual(tracker.changes(), [])

    def test_a_deferred_file_removed_meanwhile_is_a_delete_only_if_the_host_has_it(self):
        tracker = self.FileTracker(self.roots, {'maxFileBytes': 1000, 'maxFiles': 10, 'reportBytes': 700})
        tracker.write_initial([{'root': 'workspace', 'path': 'known.bin', 'content': 'k'}])
        for name in ('known.bin', 'new.bin'):
            with open(os.path.join(self.roots['workspace'], name), 'wb') as out:
                out.write(b'\1' * 600)
        [reported] = tracker.changes()  # the other one waits for the next report
        for name in ('known.bin', 'new.bin'):
            os.remove(os.path.join(self.roots['workspace'], name))
        deleted = sorted(c['path'] for c in tracker.changes() if c['op'] == 'delete')
        # known.bin came with init (the host has it); new.bin only if it was reported.
        self.assertEqual(deleted, sorted({'known.bin', reported['path']}))


class SkillImportTest(RuntimeTest):
    def test_a_skill_folder_is_a_package_with_dashes_read_as_underscores(self):
        files = [
            {'root': 'skills', 'path': 'sales-summary/SKILL.md', 'content': '---\nname: sales-summary\n---\n'},
            {'root': 'skills', 'path': 'sales-summary/__init__.py',
             'content': 'from .totals import total\n\ndef summarize(rows):\n    return {"total": total(rows)}\n'},
            {'root': 'skills', 'path': 'sales-summary/totals.py',
             'content': 'def total(rows):\n    return sum(r["amount"] for r in rows)\n'},
            {'root': 'skills', 'path': 'examples/data-processor/clean.py',
             'content': 'def clean(s):\n    return s.strip()\n'},
        ]
        rt = self.runtime(init={'files': files})
        done = rt.exec('\n'.join([
            'from skills.sales_summary import summarize',
            'import skills.sales_summary.totals as totals',
            'from skills.examples.data_processor.clean import clean',
            'return [summarize([{"amount": 2}, {"amount": 3}]), totals.total([]), clean("  x ")]',
        ]))
        self.assertEqual(self.assertOk(done)['value'], [{'total': 5}, 0, 'x'])
        self.assertEqual(done['files'], [])

    def test_a_skill_written_or_edited_by_a_block_is_imported_afresh(self):
        rt = self.runtime()
        folder = rt.skills + '/word-count'
        self.assertOk(rt.exec(f'import os\nos.makedirs({folder!r})\n'
                              f'open({folder + "/__init__.py"!r}, "w").write("def count(s):\\n    return 1\\n")'))
        self.assertEqual(rt.exec('from skills.word_count import count\ncount("a b")')['value'], 1)
        self.assertOk(rt.exec(f'open({folder + "/__init__.py"!r}, "w").write('
                              '"def count(s):\\n    return len(s.split())\\n")'))
        self.assertEqual(rt.exec('from skills.word_count import count\ncount("a b")')['value'], 2)

    def test_a_missing_skill_is_an_ordinary_import_error(self):
        rt = self.runtime()
        done = rt.exec('import skills.nothing_here')
        self.assertEqual(done['error']['name'], 'ModuleNotFoundError')


if __name__ == '__main__':
    unittest.main()
