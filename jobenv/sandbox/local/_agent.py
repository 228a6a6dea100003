"""The Python controller, PID 1 of a local sandbox where the native one (``controller.c``) cannot be built.

Both implement this protocol and these guarantees; a change here is a change there (the tests run both).

Why Python and not a shell loop: the controller holds the sandbox's control pipes, so it must be out of reach of the
commands it runs. It makes itself non-dumpable (``PR_SET_DUMPABLE 0``): a process of the same user without
``CAP_SYS_PTRACE`` (every command: all capabilities are dropped) can then neither open ``/proc/1/fd/*``, read
``/proc/1/environ``/``mem`` nor ``ptrace`` it. It sets ``no_new_privs`` (inherited by every command) and installs no
signal handler at all, so as the init of its PID namespace it ignores every signal sent from inside. Commands get
only ``/dev/null``, the output pipe and nothing else (every other fd is closed before ``exec``), and raise their own
``oom_score_adj`` so that memory pressure kills a command, never the controller.

Protocol on stdin (host -> controller): ``R`` + 8-byte big-endian length + command bytes runs ``bash -c``; ``P`` +
length + source runs a cell in the python tool's interpreter (:mod:`._worker`, started on first use); ``K`` kills
the running command (every process of the sandbox but PID 1) or the interpreter. The controller answers
``ready <pid>`` once, then one ``<exit code>`` line per command and one ``<status> <alive> <restarted>`` line per
cell on the status pipe. After each command or cell, whether it ended or was killed, every other process of the
sandbox is killed and reaped, so nothing runs between commands; the one exception is a living interpreter, which
is left stopped (SIGSTOP) until its next cell: everything else is stopped first, then killed one by one from a
``/proc`` listing until a pass finds none (a stopped process cannot fork), so nothing escapes that way either.
When jobenv runs as root (:mod:`._userns`), the last argument is ``<uid>:<uid>``: PID 1 switches to the first
before anything else, keeping ``CAP_KILL`` (to end a command of another uid), ``CAP_SETUID``/``CAP_SETGID``/
``CAP_SETPCAP`` (effective) and nothing more, and each
command drops the bounding set, the ambient set and every capability by switching to the second uid. PID 1 then
shares no uid with any command: its ``/proc`` files (owned by the namespace's root while it is non-dumpable),
``oom_score_adj`` included, are out of a command's reach, and so is signalling it.
Each command moves itself into the commands' own memory cgroup first (when the host made one), so a memory-cgroup
OOM in the sandbox can only choose among commands.
Arguments: output fd, status fd, cgroup.procs fds (space separated), rlimits ``name=value,...``, ``iso``/``unsafe``,
``<uid>:<uid>`` or empty, the commands' cgroup.procs fds (space separated, may be empty).
"""

from __future__ import annotations

__all__ = ["CONTROLLER"]

from ._worker import WORKER as _WORKER

CONTROLLER = r"""
WORKER = @WORKER@
import os, sys, select, resource, signal, time
signal.signal(signal.SIGINT, signal.SIG_DFL)  # no handler anywhere: PID 1 then ignores every signal from inside
out_fd, st_fd, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[5]
cg_fds = [int(x) for x in sys.argv[3].split()]
rlimits = [(getattr(resource, 'RLIMIT_' + k), int(v)) for k, v in (p.split('=') for p in sys.argv[4].split(',') if p)]
iso = mode == 'iso'
ids = [int(x) for x in sys.argv[6].split(':')] if len(sys.argv) > 6 and sys.argv[6] else []
cmd_cg_fds = [int(x) for x in sys.argv[7].split()] if len(sys.argv) > 7 else []
START_CAPS = (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8)  # CAP_KILL, CAP_SETGID, CAP_SETUID, CAP_SETPCAP
if ids:
    try:
        with open('/proc/sys/kernel/cap_last_cap') as f:
            last_cap = int(f.read())
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        class CapHeader(ctypes.Structure):
            _fields_ = [('version', ctypes.c_uint32), ('pid', ctypes.c_int)]
        def check(rc, what):
            if rc != 0:
                raise OSError(ctypes.get_errno(), what)
        check(libc.prctl(8, 1, 0, 0, 0), 'PR_SET_KEEPCAPS')
        os.setgroups([])
        os.setresgid(ids[0], ids[0], ids[0])
        os.setresuid(ids[0], ids[0], ids[0])
        caps = (ctypes.c_uint32 * 6)(START_CAPS, START_CAPS, 0, 0, 0, 0)  # effective, permitted, inheritable (x2)
        check(libc.capset(ctypes.byref(CapHeader(0x20080522, 0)), caps), 'capset')
        check(libc.prctl(47, 4, 0, 0, 0), 'PR_CAP_AMBIENT_CLEAR_ALL')
    except Exception:
        os._exit(4)  # never run a command as the namespace's root: the host sees a dead sandbox
# 'ready' first: the host stages the task files meanwhile, and it sends no command before start() has returned
os.write(st_fd, b'ready %d\n' % os.getpid())
try:
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    if iso and libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE 0
        raise OSError(ctypes.get_errno(), 'PR_SET_DUMPABLE')
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
except Exception:
    if iso:
        os._exit(3)  # never run a command reachable through /proc/1: the host sees a dead sandbox
# join the cgroups only now: a cgroup-v1 migration (~10 ms) overlaps with the host staging the task files
for fd in cg_fds:
    try:
        os.write(fd, b'0')
    except OSError:
        pass
    os.close(fd)
null = os.open('/dev/null', os.O_RDWR)
ws = os.environ.get('WORKSPACE', '/workspace')

def read_exact(n):
    buf = b''
    while len(buf) < n:
        chunk = os.read(0, n - len(buf))
        if not chunk:
            os._exit(0)  # the host is gone
        buf += chunk
    return buf

def kill_all(pid):
    if iso:
        try:
            os.kill(-1, 9)
        except OSError:
            pass
    elif pid > 0:
        try:
            os.killpg(pid, 9)
        except OSError:
            pass

def reap(pid):
    # wait (max ~2 s) until every killed process is gone, so the next command starts with a clean process table
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        try:
            got, _ = os.waitpid(-1 if iso else pid, os.WNOHANG)
        except ChildProcessError:
            if not iso:
                return
            try:
                os.kill(-1, 9)  # a process that raced the first kill
            except ProcessLookupError:
                return
            except OSError:
                pass
            got = 0
        if got == 0:
            time.sleep(0.002)

def pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None  # an old kernel: the wait loops poll instead

def kill_requested(pid):
    # one control byte from the host: True for a kill request; the host gone ends the sandbox
    req = os.read(0, 1)
    if not req:
        kill_all(pid)
        os._exit(0)
    return req == b'K'

def prepare(keep_worker_pipes=False):
    # what every process the controller starts goes through: its cgroup, session, descriptors, limits, uid
    for fd in cmd_cg_fds:
        try:
            os.write(fd, b'0')  # first: the process's memory is charged to the commands' cgroup
        except OSError:
            pass  # then the sandbox's own cgroup still bounds it
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # Python ignores it; a command gets the default, as in a shell
    os.setsid()
    os.dup2(null, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    if keep_worker_pipes:
        os.dup2(900, 3)
        os.dup2(901, 4)
    os.closerange(5 if keep_worker_pipes else 3, 65536)
    for res, value in rlimits:
        try:
            resource.setrlimit(res, (value, value))
        except (OSError, ValueError):
            pass
    if ids:
        libc.prctl(4, 1, 0, 0, 0)  # dumpable for a moment: /proc/self must be ours to write oom_score_adj
    try:
        with open('/proc/self/oom_score_adj', 'w') as f:
            f.write('1000')
    except OSError:
        pass
    if ids:
        for cap in range(last_cap + 1):
            libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP
        if libc.prctl(8, 0, 0, 0, 0) != 0 or libc.prctl(47, 4, 0, 0, 0) != 0:
            os._exit(126)
        os.setgroups([])
        os.setresgid(ids[1], ids[1], ids[1])
        os.setresuid(ids[1], ids[1], ids[1])  # all capabilities go with the last root-like uid
    os.chdir(ws)

def child(cmd):
    try:
        prepare()
        os.execv('/bin/bash', [b'bash', b'-c', cmd])
    finally:
        os._exit(127)

def start_worker():
    req_r, req_w = os.pipe()
    res_r, res_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(req_r, 900)
            os.dup2(res_w, 901)
            prepare(keep_worker_pipes=True)
            try:
                import ctypes
                ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG: never outlive the controller
            except Exception:
                pass
            os.execvp('python3', ['python3', '-u', '-c', WORKER])
        finally:
            os._exit(127)
    os.close(req_r)
    os.close(res_w)
    os.set_blocking(req_w, False)
    return [pid, req_w, res_r]

worker = None  # [pid, request fd, result fd] of the python tool's interpreter, while one lives
worker_starts = 0
reaped = {}  # wait statuses settle() collected for children other than the worker

def drop_worker():
    global worker
    if worker is not None:
        for fd in worker[1:]:
            try:
                os.close(fd)
            except OSError:
                pass
        worker = None

def settle():
    # every process but PID 1 and the worker killed and reaped (the worker is left stopped): first stop them all,
    # so that none can fork while the list is read, then kill each one left until a pass finds none
    for _ in range(1000):
        try:
            os.kill(-1, signal.SIGSTOP)
        except OSError:
            pass
        keep = worker[0] if worker is not None else -1
        busy = False
        for name in os.listdir('/proc'):
            if not name.isdigit() or int(name) in (1, keep):
                continue
            try:
                with open('/proc/' + name + '/stat', 'rb') as f:
                    stat = f.read()
            except OSError:
                continue
            if stat[stat.rindex(b')') + 2:][:1] in (b'Z', b'X'):
                continue  # a zombie: reaped below, or by the worker that started it
            busy = True
            try:
                os.kill(int(name), 9)
            except OSError:
                pass
        while True:
            try:
                got, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if got == 0:
                break
            if worker is not None and got == worker[0]:
                drop_worker()
            else:
                reaped[got] = status
        if not busy:
            return
        time.sleep(0.001)

def finish_command(pid):
    # after a command: nothing of it may run on; a living worker survives, stopped
    if iso and worker is not None:
        settle()
    else:
        kill_all(pid)
        reap(pid)

def run_python(code):
    global worker, worker_starts
    fresh = worker is None
    if fresh:
        try:
            worker = start_worker()
        except OSError:
            finish_command(0)
            os.write(out_fd, b'error: the sandbox could not start the python interpreter (no process slot left)\n')
            return 126, fresh
        worker_starts += 1
    else:
        try:
            os.kill(worker[0], signal.SIGCONT)
        except OSError:
            pass
    pid, req_w, res_r = worker
    pending = len(code).to_bytes(8, 'big') + code
    pfd = pidfd(pid)
    rc = None
    line = b''
    while rc is None:
        watch = [0, res_r] + ([pfd] if pfd is not None else [])
        ready, writable, _ = select.select(watch, [req_w] if pending else [], [], 0.05 if pfd is None else None)
        if writable:
            try:
                pending = pending[os.write(req_w, pending[:65536]):]
            except BlockingIOError:
                pass
            except OSError:
                pending = b''  # the interpreter is gone: its exit is seen below
        if 0 in ready and kill_requested(pid):
            rc = 124
            break
        if res_r in ready:
            chunk = os.read(res_r, 64)
            line += chunk
            if b'\n' in line:
                rc = 0 if line.split(b'\n', 1)[0] == b'0' else 1
                break
            if not chunk:
                rc = -1  # it closed its result pipe: exited, or broke its own plumbing
                break
        if pfd is not None and pfd in ready or pfd is None and os.waitpid(pid, os.WNOHANG)[0]:
            rc = -1
            break
    if pfd is not None:
        os.close(pfd)
    if rc == 124 or rc == -1:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
        try:
            _, status = os.waitpid(pid, 0)
            code_ = os.waitstatus_to_exitcode(status)
        except ChildProcessError:
            code_ = -9
        drop_worker()
        if rc == -1:
            rc = 128 - code_ if code_ < 0 else code_
    if iso:
        settle() if worker is not None else (kill_all(0), reap(0))
    return rc, fresh

while True:
    kind = os.read(0, 1)
    if not kind:
        break
    if kind == b'P':
        rc, fresh = run_python(read_exact(int.from_bytes(read_exact(8), 'big')))
        reaped.clear()
        alive = worker is not None
        os.write(st_fd, b'%d %d %d\n' % (rc, alive, fresh and worker_starts > 1))  # status, alive, restarted
        continue
    if kind != b'R':
        continue  # a late kill request for a command that already ended
    cmd = read_exact(int.from_bytes(read_exact(8), 'big'))
    try:
        pid = os.fork()
    except OSError:
        finish_command(0)
        os.write(out_fd, b'error: the sandbox could not start the command (no process slot left)\n')
        os.write(st_fd, b'126\n')
        continue
    if pid == 0:
        child(cmd)
    pfd = pidfd(pid)
    rc = None
    while rc is None:
        ready, _, _ = select.select([0] + ([pfd] if pfd is not None else []), [], [], 0.05 if pfd is None else None)
        if 0 in ready and kill_requested(pid):
            if iso and worker is not None:
                settle()
            else:
                kill_all(pid)
        try:
            got, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # settle() reaped it
            got, status = pid, reaped.pop(pid, 9)
        if got:
            rc = os.waitstatus_to_exitcode(status)
    if pfd is not None:
        os.close(pfd)
    finish_command(pid)
    reaped.clear()
    os.write(st_fd, b'%d\n' % (128 - rc if rc < 0 else rc))
"""
CONTROLLER = CONTROLLER.replace("@WORKER@", repr(_WORKER), 1)
