"""`import skills.<name>` for the skill folders under /skills.

The rule (docs/architecture/python-runtime.md, "Skills"):
- `skills` is a package whose folder is the skills root (/skills).
- Every folder below it is a package: `skills.sales_summary` is the folder
  /skills/sales-summary (skill names use '-', which Python names cannot;
  a folder spelled exactly like the Python name wins if both exist).
  Its `__init__.py` runs if there is one (the twin of a JavaScript skill's
  index.js); without one the package is just a folder of modules.
- Every `.py` file is a module: /skills/sales-summary/report.py is
  `skills.sales_summary.report` (a '-' in a file name reads as '_' too).
- So `from skills.sales_summary import summarize` finds `summarize` in the
  folder's __init__.py, or else the module summarize.py.
- Shared examples: `skills.examples.data_processor` is
  /skills/examples/data-processor.

A skill edited by a block is imported afresh by the next block that imports
it (refresh(), before every block), and no __pycache__ is written (it would
be reported back as a file change of the skill).
"""
import importlib
import importlib.machinery
import importlib.util
import os
import sys

PACKAGE = 'skills'


class SkillFinder:
    """A meta path finder (importlib.abc.MetaPathFinder's protocol; not its
    class, whose import pulls in importlib.resources: 10-30 ms of start-up)."""

    def __init__(self, root):
        self.root = root
        self._loaded = {}  # module name -> (file or folder, (mtime_ns, size) when found)

    def find_spec(self, fullname, path=None, target=None):
        if fullname == PACKAGE:
            return self._package(fullname, self.root, init=None)
        if not fullname.startswith(PACKAGE + '.'):
            return None
        parent_name, _, leaf = fullname.rpartition('.')
        parent = sys.modules.get(parent_name)
        folders = list(getattr(parent, '__path__', None) or [])
        spellings = list(dict.fromkeys([leaf, leaf.replace('_', '-')]))
        for folder in folders:
            for spelling in spellings:
                candidate = os.path.join(folder, spelling)
                if os.path.isdir(candidate):
                    init = os.path.join(candidate, '__init__.py')
                    return self._package(fullname, candidate, init if os.path.isfile(init) else None)
            for spelling in spellings:
                module_file = os.path.join(folder, spelling + '.py')
                if os.path.isfile(module_file):
                    self._remember(fullname, module_file)
                    return importlib.util.spec_from_file_location(fullname, module_file)
        return None

    def _package(self, fullname, folder, init):
        self._remember(fullname, init or folder)
        if init is not None:
            return importlib.util.spec_from_file_location(fullname, init, submodule_search_locations=[folder])
        spec = importlib.machinery.ModuleSpec(fullname, _FolderLoader(), origin=folder, is_package=True)
        spec.submodule_search_locations = [folder]
        return spec

    def _remember(self, fullname, path):
        self._loaded[fullname] = (path, _stamp(path))

    def refresh(self):
        """Forgets every imported skill module if any of their files changed
        or went away since it was imported, so the next import reads them
        again. All of them: a module keeps references to its neighbours."""
        changed = any(_stamp(path) != mtime for path, mtime in self._loaded.values())
        if changed:
            self.forget()

    def forget(self):
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + '.')]:
            del sys.modules[name]
        self._loaded.clear()
        importlib.invalidate_caches()


class _FolderLoader:
    """A package without __init__.py: an empty module with a __path__."""

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        pass


def _stamp(path):
    # With the size: two writes within one tick of the file system's clock
    # can leave the same mtime.
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def install(root):
    """Puts the skills finder first, before any `skills` on sys.path."""
    finder = SkillFinder(root)
    sys.meta_path.insert(0, finder)
    return finder
