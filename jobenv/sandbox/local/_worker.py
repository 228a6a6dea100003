"""The python tool's interpreter: a loop run by the sandbox's ``python3`` that executes cells in one namespace.

It is started by the controller (:mod:`._agent`) on the first python call of a sandbox, exactly like a command
(same uid, cgroup, rlimits, ``oom_score_adj``), with ``/dev/null`` on stdin, the host's output pipe on stdout and
stderr, the request pipe on fd 3 and the result pipe on fd 4 (both made close-on-exec at once, so nothing it
starts inherits them). A request is an 8-byte big-endian length and the cell's UTF-8 source; the answer is one
line on fd 4: ``0`` (the cell ran) or ``1`` (it raised). Like a notebook cell, a final expression's ``repr`` is
printed (and kept as ``_``); an exception prints its traceback without this loop's own frames; ``sys.exit`` and
``exit()`` are reported, not obeyed, so the state survives them. Output is unbuffered (``python3 -u``) so stdout
and stderr interleave in the order they were written. Processes a cell starts are killed when it ends (by the
controller); the next cell first collects them, so a ``Popen`` kept from an earlier cell reports exit status 0.
"""

from __future__ import annotations

__all__ = ["WORKER"]

WORKER = r"""
import ast, builtins, linecache, os, sys, traceback
os.set_inheritable(3, False)
os.set_inheritable(4, False)
sys.argv = ['']
if '' not in sys.path:
    sys.path.insert(0, '')
namespace = {'__name__': '__main__', '__builtins__': builtins}

def read_exact(n):
    buf = b''
    while len(buf) < n:
        chunk = os.read(3, n - len(buf))
        if not chunk:
            os._exit(0)  # the controller is gone
        buf += chunk
    return buf

def run(source, name):
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)  # tracebacks show the lines
    tree = ast.parse(source, name, 'exec')
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, name, 'exec'), namespace)
    if last is not None:
        value = eval(compile(last, name, 'eval'), namespace)
        if value is not None:
            namespace['_'] = value
            print(repr(value))

cell = 0
while True:
    source = read_exact(int.from_bytes(read_exact(8), 'big')).decode('utf-8', 'surrogateescape')
    cell += 1
    name = '<cell %d>' % cell
    while True:  # children of earlier cells were killed after their cell: collect them, freeing process slots
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    status = 0
    try:
        run(source, name)
    except SystemExit as exc:
        print('SystemExit: %r (ignored: the interpreter keeps its state)' % (exc.code,), file=sys.stderr)
    except BaseException as exc:
        status = 1
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != name:
            tb = tb.tb_next  # leave out this loop's frames
        try:
            traceback.print_exception(type(exc), exc, tb)
        except BaseException:
            print('%s (its traceback could not be printed)' % type(exc).__name__, file=sys.stderr)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    os.write(4, b'%d\n' % status)
"""
