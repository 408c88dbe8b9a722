"""Turns what agent code returned or raised into protocol values.

The twin of sandbox/runtime/serialize.js. A result must survive JSON with its
meaning intact; anything else is refused with a message that names the path
of the first offending value ("value.rows[3] is a set"), so the model can fix
its code instead of guessing.
"""
import dataclasses
import datetime
import enum
import math
import traceback

# How deep a value may nest in lists and dicts. The host refuses any frame
# nested deeper than 256 levels as a protocol error and discards the sandbox;
# a frame wraps a value in a level or two of its own. So the runtime refuses
# deeper values itself, with a message the code can act on.
MAX_VALUE_DEPTH = 250


class NotJSONError(TypeError):
    """A value JSON cannot carry; the message names its path."""


def _key_path(path, key):
    # value.rows for plain names (as in JS and in the brief), value["a b"] otherwise.
    if isinstance(key, str) and key.isidentifier():
        return f'{path}.{key}'
    return f'{path}[{key!r}]'


def _what(value):
    """A short description of a value JSON has no form for, with a hint."""
    if isinstance(value, (set, frozenset)):
        return 'a set; return list(...) or sorted(...) instead'
    if isinstance(value, (bytes, bytearray, memoryview)):
        return 'bytes; return .decode() or base64.b64encode(...).decode() instead'
    if isinstance(value, complex):
        return 'a complex number'
    if type(value).__name__ == 'Decimal':
        return 'a Decimal; return float(...) or str(...) instead'
    if hasattr(value, '__await__') or type(value).__name__ == 'coroutine':
        return f'a {type(value).__name__}; await it first'
    if callable(value) and not isinstance(value, type):
        return 'a function'
    kind = type(value).__name__
    if type(value).__module__.startswith('pandas') and kind == 'DataFrame':
        return "a pandas DataFrame; return df.to_dict(orient='records') instead"
    if type(value).__module__.startswith('pandas') and kind == 'Series':
        return 'a pandas Series; return series.tolist() or series.to_dict() instead'
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return f'a {type(value).__name__} object; return dataclasses.asdict(...) instead'
    return f'a {type(value).__name__} object'


def to_json(value, path='value', depth=0, on_path=None):
    """Returns `value` as plain JSON types (dict, list, str, int, float, bool,
    None), or raises NotJSONError naming the first offending path.

    Tuples become lists and dict keys that JSON writes as text (numbers,
    booleans, None) become strings, as json.dumps does; date and time values
    become ISO text, as a JavaScript Date does; numpy numbers and arrays
    become the numbers and lists they hold."""
    if value is None or type(value) is bool:
        return value
    if isinstance(value, enum.Enum):
        return to_json(value.value, path, depth, on_path)
    if isinstance(value, str):
        return str.__str__(value)  # the text itself, also of a str subclass
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotJSONError(f'{path} is {value} (JSON has no such number)')
        return float(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    numpy_value = _from_numpy(value)
    if numpy_value is not value:
        return to_json(numpy_value, path, depth, on_path)
    if not isinstance(value, (dict, list, tuple)):
        raise NotJSONError(f'{path} is {_what(value)}')
    on_path = on_path if on_path is not None else set()
    if id(value) in on_path:
        raise NotJSONError(f'{path} is circular')
    if depth >= MAX_VALUE_DEPTH:
        raise NotJSONError(f'{path} nests deeper than {MAX_VALUE_DEPTH} levels of lists and dicts')
    on_path.add(id(value))
    try:
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if isinstance(key, float) and not math.isfinite(key):
                    raise NotJSONError(f'{path} has the key {key}, which JSON cannot write')
                if not isinstance(key, (str, int, float, bool)) and key is not None:
                    raise NotJSONError(f'{path} has the key {key!r}, a {type(key).__name__}; JSON keys are text')
                text_key = key if isinstance(key, str) else _json_key(key)
                out[text_key] = to_json(item, _key_path(path, key), depth + 1, on_path)
            return out
        return [to_json(item, f'{path}[{i}]', depth + 1, on_path) for i, item in enumerate(value)]
    finally:
        on_path.discard(id(value))


def _from_numpy(value):
    """A numpy scalar (df["x"].sum() is a numpy.int64, no int) as the Python
    number it holds, a numpy array as lists; anything else as it is. By the
    type's module, so the runtime never imports numpy itself."""
    if type(value).__module__ != 'numpy':
        return value
    if hasattr(value, 'tolist') and getattr(value, 'ndim', 0) > 0:
        return value.tolist()
    if hasattr(value, 'item'):
        return value.item()
    return value


def _json_key(key):
    # What json.dumps writes for a non-text key.
    if key is True:
        return 'true'
    if key is False:
        return 'false'
    if key is None:
        return 'null'
    return str(key) if isinstance(key, int) else repr(float(key))


def nests_too_deep(value, depth=0):
    """True when `value` nests deeper than MAX_VALUE_DEPTH. Cheaper than
    to_json (no paths, no copy), for tool arguments on the call path."""
    if isinstance(value, dict):
        items = value.values()
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        return False
    if depth >= MAX_VALUE_DEPTH:
        return True
    return any(nests_too_deep(item, depth + 1) for item in items)


# --- errors ---------------------------------------------------------------


def describe_error(exc, frames):
    """{name, message, stack?, code?, data?} for an exception of agent code.

    `frames` (blocks.AgentFiles) says which code objects are the agent's and
    how to name them: the stack keeps only those frames, so it shows where
    the agent's code failed and nothing of the runtime."""
    syntax = isinstance(exc, SyntaxError) and frames.display_name(exc.filename or '') is not None
    if syntax:
        exc.filename = frames.display_name(exc.filename)  # before the message, which quotes it
    out = {'name': type(exc).__name__, 'message': _message(exc)}
    stack = format_stack(exc, frames, syntax)
    if stack:
        out['stack'] = stack
    code = getattr(exc, 'code', None)
    if code is not None and type(exc).__name__ == 'MCPToolError':
        out['code'] = _plain_or_none(code)
        data = getattr(exc, 'data', None)
        # Data nested past the limit would make the whole frame a protocol error.
        if data is not None and _plain_or_none(data) is not None:
            out['data'] = _plain_or_none(data)
    return {k: v for k, v in out.items() if v is not None}


def _message(exc):
    try:
        return str(exc)
    except Exception:  # a broken __str__ must not break the report
        return f'<{type(exc).__name__} whose message cannot be shown>'


def _plain_or_none(value):
    try:
        return to_json(value)
    except NotJSONError:
        return None


def format_stack(exc, frames, syntax=False):
    """Python's own traceback layout, trimmed to the agent's frames:

        Traceback (most recent call last):
          File "agent-code.py", line 4, in <module>
            inner()
          File "agent-code.py", line 2, in inner
            raise ValueError("out of range")
        ValueError: out of range

    None when no frame is the agent's (an error inside the runtime's own
    checks) and the error is no SyntaxError of the block (`syntax`: then
    the lines that show where the code could not be read)."""
    lines = []
    for summary in traceback.extract_tb(exc.__traceback__):
        shown = frames.display_name(summary.filename)
        if shown is None:
            continue
        earlier = ' (an earlier block)' if frames.is_earlier(summary.filename) else ''
        lines.append(f'  File "{shown}"{earlier}, line {summary.lineno}, in {summary.name}\n')
        if summary.line:
            lines.append(f'    {summary.line.strip()}\n')
    if not lines and not syntax:
        return None
    head = ['Traceback (most recent call last):\n'] if lines else []
    try:
        tail = traceback.format_exception_only(type(exc), exc)
    except Exception:
        tail = [f'{type(exc).__name__}: {_message(exc)}\n']
    return ''.join(head + lines + tail).rstrip('\n')
