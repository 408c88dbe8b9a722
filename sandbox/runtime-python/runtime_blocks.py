"""A block's code becomes the body of an async function over the session's
globals, so top-level `await` and `return` work and every name the block
binds at top level is a global the next block sees.

    x = await call_mcp_tool(...)         async def <module>(__harness_block__):
    import json                   ->         global x, json, f
    def f(): ...                             x = await call_mcp_tool(...)
    f()                                      import json
                                             def f(): ...
                                             return f()

Why a function with `global` and not module code compiled with
PyCF_ALLOW_TOP_LEVEL_AWAIT plus `return` turned into raising an exception:
a real `return` keeps Python's own meaning. An exception would be caught by
a bare `except:` around it, and a `with` block would see an error (a
sqlite3 connection rolls back, a TaskGroup cancels its tasks).

The transformations, all at top level only (not inside def, class, lambda):
- a trailing expression statement becomes `return <expression>` (notebook
  style; a `return` that runs earlier wins);
- `x: int = 5` loses its annotation (an annotated global is a SyntaxError
  inside a function); `global x` is dropped (everything is global already);
- `from m import *` (not allowed inside a function) becomes a call that
  copies m's public names into the globals;
- `locals()`, `vars()` and `dir()` without arguments, and `exec(text)` and
  `eval(text)` without a namespace, see the globals, as at module level;
- `yield` is refused, as at module level.
"""
import __future__
import ast
import importlib
import itertools
import linecache
import types

DISPLAY_NAME = 'agent-code.py'
_FUNCTION_ARG = '__harness_block__'
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class AgentFiles:
    """The code of every block of the runtime, by internal file name.

    Each block compiles under a name of its own ("<agent-code e3>"), so a
    traceback through a function defined two blocks ago still shows that
    block's line, not the current block's. Stacks show them all as
    agent-code.py; a frame from an earlier block says so."""

    def __init__(self):
        self._seq = itertools.count(1)
        self._names = set()
        self.current = None

    def register(self, code):
        name = f'<agent-code {next(self._seq)}>'
        # linecache serves tracebacks the source lines; an entry with mtime
        # None is never checked against (or evicted for) a file on disk.
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        self._names.add(name)
        self.current = name
        return name

    def display_name(self, filename):
        """The name a frame of `filename` shows, or None if it is not agent code."""
        return DISPLAY_NAME if filename in self._names else None

    def is_earlier(self, filename):
        return filename != self.current


class BlockHelper:
    """The hidden argument of a block's function: what the rewritten code calls."""

    def __init__(self, namespace):
        self._namespace = namespace

    def star_import(self, module, level):
        if level:
            raise ImportError('a block is no package: relative imports have nothing to be relative to')
        mod = importlib.import_module(module)
        names = getattr(mod, '__all__', None)
        if names is None:
            names = [n for n in vars(mod) if not n.startswith('_')]
        for name in names:
            self._namespace[name] = getattr(mod, name)

    def globals(self):
        return self._namespace

    def dir(self):
        return sorted(self._namespace)


def compile_block(code, filename, namespace):
    """Returns a coroutine function of no arguments that runs `code` in
    `namespace` and returns the block's result. Raises SyntaxError."""
    tree = ast.parse(code, filename=filename)
    flags = _take_future_imports(tree.body)
    names, needs_rewrite = _read_top_level(tree.body, filename, code)
    body = tree.body
    # Most blocks need none of _TopLevel's rewrites, and then neither its
    # walk nor fix_missing_locations' (together half the cost of a small
    # block). The calls it rewrites can sit anywhere in the block's scope,
    # comprehensions included, so the source text is asked instead: a name
    # that is not in it cannot be called (a false hit only costs the walk).
    # Not in ASCII text only: Python reads ｌｏｃａｌｓ as locals (NFKC).
    rewritten = needs_rewrite or not code.isascii() or any(name in code for name in _TopLevel.CALLS)
    if rewritten:
        body = _TopLevel().rewrite(body)
    if body and isinstance(body[-1], ast.Expr):
        body[-1] = ast.copy_location(ast.Return(value=body[-1].value), body[-1])
    names.discard(_FUNCTION_ARG)
    prologue = [_at_start(ast.Global(names=sorted(names)))] if names else []
    function = _at_start(ast.AsyncFunctionDef(
        name='<module>',
        args=ast.arguments(posonlyargs=[], args=[_at_start(ast.arg(arg=_FUNCTION_ARG))], kwonlyargs=[],
                           kw_defaults=[], defaults=[]),
        body=prologue + (body or [_at_start(ast.Pass())]), decorator_list=[], returns=None))
    module = ast.Module(body=[function], type_ignores=[])
    if rewritten:
        ast.fix_missing_locations(module)  # the nodes _TopLevel made
    compiled = compile(module, filename, 'exec', flags=flags, dont_inherit=True)
    function_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    block = types.FunctionType(function_code, namespace, '<module>')
    helper = BlockHelper(namespace)
    return lambda: block(helper)


def _at_start(node):
    """The block's own nodes stand at its first line."""
    node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = 1, 0, 1, 0
    return node


def _take_future_imports(body):
    """Removes `from __future__ import ...` (allowed only at the top of a
    file, which the block's function is not) and returns their compile flags."""
    flags = 0
    while body and isinstance(body[0], ast.ImportFrom) and body[0].module == '__future__':
        for alias in body.pop(0).names:
            feature = getattr(__future__, alias.name, None)
            if feature is None:
                raise SyntaxError(f'future feature {alias.name} is not defined')
            flags |= feature.compiler_flag
    return flags


def _read_top_level(body, filename, code):
    """One walk of the block's own scope: the names it binds (they become
    globals), and whether a statement needs _TopLevel's rewrite. Refuses
    `yield`, as at module level."""
    names = set()
    needs_rewrite = False
    for node in _walk_top_level(body):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == '*':
                    needs_rewrite = True
                else:
                    names.add(alias.asname or alias.name.split('.')[0])
        elif isinstance(node, ast.Global):
            names.update(node.names)
            needs_rewrite = True
        elif isinstance(node, ast.AnnAssign):
            needs_rewrite = True
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        elif isinstance(node, (ast.Yield, ast.YieldFrom)):
            lines = code.splitlines()
            text = lines[node.lineno - 1] if node.lineno <= len(lines) else ''
            raise SyntaxError("'yield' outside function", (filename, node.lineno, node.col_offset + 1, text))
    return names, needs_rewrite


def _walk_top_level(nodes):
    """Every node of `nodes` that runs in the block's own scope: not inside
    a def, class body, lambda or comprehension (their names are their own)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # Decorators, defaults and base classes run in the block's scope.
            stack.extend(node.decorator_list)
            if isinstance(node, ast.ClassDef):
                stack.extend(node.bases + [k.value for k in node.keywords])
            else:
                stack.extend(d for d in node.args.defaults + node.args.kw_defaults if d is not None)
            continue
        if isinstance(node, ast.Lambda):
            stack.extend(d for d in node.args.defaults + node.args.kw_defaults if d is not None)
            continue
        if isinstance(node, _COMPREHENSIONS):
            # Only the first iterable runs outside; a walrus inside binds here.
            stack.append(node.generators[0].iter)
            stack.extend(n.target for n in ast.walk(node) if isinstance(n, ast.NamedExpr))
            continue
        stack.extend(ast.iter_child_nodes(node))


class _TopLevel(ast.NodeTransformer):
    """The rewrites of the module docstring, applied outside nested scopes."""

    CALLS = ('locals', 'vars', 'dir', 'exec', 'eval')  # the names visit_Call rewrites

    def rewrite(self, body):
        return [n for n in (self.visit(node) for node in body) if n is not None]

    def _nested(self, node):
        # Inside a def, class or lambda only the parts that run in the
        # block's scope (decorators, defaults, bases) are rewritten.
        for field in ('decorator_list', 'bases'):
            if hasattr(node, field):
                setattr(node, field, [self.visit(n) for n in getattr(node, field)])
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _nested

    def visit_AnnAssign(self, node):
        if not isinstance(node.target, ast.Name):
            return self.generic_visit(node)  # obj.attr: int = 1 is fine in a function
        if node.value is None:
            return ast.copy_location(ast.Pass(), node)
        return ast.copy_location(
            ast.Assign(targets=[node.target], value=self.visit(node.value)), node)

    def visit_Global(self, node):
        return ast.copy_location(ast.Pass(), node)

    def visit_ImportFrom(self, node):
        if node.names[0].name != '*':
            return node
        call = ast.Call(func=_helper('star_import'),
                        args=[ast.Constant(node.module or ''), ast.Constant(node.level)], keywords=[])
        return ast.copy_location(ast.Expr(value=call), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if not isinstance(node.func, ast.Name) or node.keywords:
            return node
        name = node.func.id
        if not node.args and name in ('locals', 'vars'):
            return ast.copy_location(ast.Call(func=_helper('globals'), args=[], keywords=[]), node)
        if not node.args and name == 'dir':
            return ast.copy_location(ast.Call(func=_helper('dir'), args=[], keywords=[]), node)
        if len(node.args) == 1 and not isinstance(node.args[0], ast.Starred) and name in ('exec', 'eval'):
            node.args.append(ast.Call(func=_helper('globals'), args=[], keywords=[]))
        return node


def _helper(method):
    return ast.Attribute(value=ast.Name(id=_FUNCTION_ARG, ctx=ast.Load()), attr=method, ctx=ast.Load())
