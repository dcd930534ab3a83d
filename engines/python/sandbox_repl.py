"""The Python half of the CPython guest driver (engines/python/driver.c).

Shipped in the stdlib archive as _sandbox_repl; driver.c imports it once per session and calls
execute() for every request and after_restore() after a snapshot restore.

REPL semantics (those of upstream's Python engine; results as docs/protocol.md#execution-result):
  * the code is parsed with ast; when its last statement is an expression, that expression is
    evaluated separately and its value is the result; everything runs in the persistent
    __main__ globals, so names defined by one call are visible to the next;
  * results: None -> none; dict/list -> {"json": value} when json.dumps(value,
    allow_nan=False) succeeds; anything else (and a dict/list that does not serialize) ->
    {"text": repr(value)};
  * errors (any BaseException, SystemExit included): {"name": type name, "message": str(e),
    "traceback": ["<Name>: <message>", then '  File "<file>", line <n>, in <function>' per
    frame, outermost first, from the first frame of the guest's code on (a SyntaxError gets
    the offending line and a caret instead)]}. The traceback module is not used: importing it
    costs a lot of fuel;
  * os.environ is replaced by the request's variables; os.chdir(cwd) runs before the code and
    os.getcwd() is reported after it; /workspace is first on sys.path.
"""
import ast as _ast
import json as _json
import os as _os
import sys as _sys

_FILENAME = '<input>'
_WORKSPACE = '/workspace'
_main_globals = _sys.modules['__main__'].__dict__

# stderr is line-buffered by default; the host counts every write as one output piece (200 at
# most per call), and execute() flushes both streams at the end anyway.
_sys.stderr.reconfigure(line_buffering=False)


def _prepare(cwd, env_pairs):
    environ = _os.environ
    environ.clear()
    for name, value in env_pairs:
        environ[name] = value
    if cwd is not None:
        try:
            _os.chdir(cwd)
        except OSError:
            try:
                _os.chdir(_WORKSPACE)
            except OSError:
                pass
    if _WORKSPACE not in _sys.path:
        _sys.path.insert(0, _WORKSPACE)
    # The import system caches directory listings by mtime; files written since the last call
    # may not have changed a directory's mtime as the host reports it, so always look again.
    for path, finder in list(_sys.path_importer_cache.items()):
        if isinstance(path, str) and path.startswith(_WORKSPACE) and finder is not None:
            invalidate = getattr(finder, 'invalidate_caches', None)
            if invalidate is not None:
                invalidate()


def _run(source):
    tree = _ast.parse(source, _FILENAME, 'exec')
    last = None
    if tree.body and isinstance(tree.body[-1], _ast.Expr):
        last = _ast.Expression(tree.body.pop().value)
    exec(compile(tree, _FILENAME, 'exec'), _main_globals)
    if last is None:
        return None
    return eval(compile(last, _FILENAME, 'eval'), _main_globals)


def _dumps(value):
    return _json.dumps(value, separators=(',', ':'))


def _results_json(value):
    if value is None:
        return '[]'
    if isinstance(value, (dict, list)):
        try:
            return '[{"json":' + _json.dumps(value, allow_nan=False, separators=(',', ':')) + '}]'
        except (TypeError, ValueError, RecursionError):
            pass
    return _dumps([{'text': repr(value)}])


def _error(exc):
    name = type(exc).__name__
    try:
        message = str(exc)
    except BaseException:  # a broken __str__ must not hide the original error
        message = f'<{name}: str() failed>'
    traceback = [f'{name}: {message}']
    if isinstance(exc, SyntaxError) and exc.filename == _FILENAME:
        traceback.append(f'  File "{exc.filename}", line {exc.lineno}')
        text = (exc.text or '').rstrip('\n')
        if text.strip():
            indent = len(text) - len(text.lstrip())
            traceback.append('    ' + text.strip())
            if exc.offset:
                traceback.append('    ' + ' ' * max(exc.offset - 1 - indent, 0) + '^')
        return {'name': name, 'message': message, 'traceback': traceback}
    # Frames before the guest's first one belong to this runner (and ast/compile it calls).
    in_guest = False
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        in_guest = in_guest or code.co_filename == _FILENAME
        if in_guest:
            traceback.append(f'  File "{code.co_filename}", line {tb.tb_lineno}, in {code.co_name}')
        tb = tb.tb_next
    return {'name': name, 'message': message, 'traceback': traceback}


def _flush():
    for stream in (_sys.stdout, _sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def execute(source, cwd, env_pairs):
    """Runs one request; returns (status, envelope JSON): status 0 ok, 1 guest error."""
    _prepare(cwd, env_pairs)
    error = None
    try:
        results = _results_json(_run(source))
    except BaseException as exc:  # noqa: B036 - SystemExit and KeyboardInterrupt are guest errors too
        results = '[]'
        error = _error(exc)
    finally:
        _flush()
    envelope = '{"results":' + results
    if error is not None:
        envelope += ',"error":' + _dumps(error)
    try:
        envelope += ',"cwd":' + _dumps(_os.getcwd())
    except OSError:
        pass
    return (0 if error is None else 1), envelope + '}'


def after_restore():
    """A restored copy must not replay the random state captured in the snapshot."""
    import random
    random.seed()
