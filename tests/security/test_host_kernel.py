"""Security v3 from inside real sandboxes: no command is host root, reaches the host kernel's knobs or keyrings,
makes namespaces, or raises PID 1's place in the OOM killer's order; as root and as a normal user on a wheel install.

Each probe does what an agent would (shell, perl's ``syscall``) and each assertion is checked from the host too
where the host can see it (sysctl values, file owners, PID 1's uid).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.sandbox.fixtures import run

local_only = pytest.mark.parametrize("backend", ["local"], indirect=True)

# knob -> a value different from any sane host setting; written from inside, read back on the host
KNOBS = {
    "kernel/printk_ratelimit_burst": None,  # the host's value + 1
    "kernel/core_pattern": "|/workspace/output/pwn.sh %p",
    "kernel/panic": "7",
    "vm/overcommit_ratio": None,
    "kernel/shmmni": None,
}


def _host_knob(name: str) -> str:
    return Path("/proc/sys", name).read_text().strip()


def _perl_syscall(nr: str, *args: str) -> str:
    """A perl one-liner making one raw system call and printing ``rc=<result> errno=<errno>`` (string arguments
    go through variables: perl passes them as writable buffers)."""
    names = [f"$a{i}" for i in range(len(args))]
    setup = "".join(f"{n} = {a}; " for n, a in zip(names, args, strict=True))
    return f"perl -e '{setup}$r = syscall({nr}, {', '.join(names)}); print \"rc=$r errno=\", $!+0, \"\\n\"'"


# x86-64 numbers (the suite's machine); the filter itself carries aarch64 too
ADD_KEY, KEYCTL, UNSHARE, MOUNT = "248", "250", "272", "165"


def test_host_sysctls_stay_untouched(new_sandbox) -> None:
    before = {k: _host_knob(k) for k in KNOBS}
    wanted = {k: v if v is not None else str(int(before[k].split()[0]) + 1) for k, v in KNOBS.items()}

    async def body() -> str:
        sb = await new_sandbox()
        script = "; ".join(f"(echo '{v}' > /proc/sys/{k}) 2>/dev/null && echo WROTE:{k}" for k, v in wanted.items())
        script += "; (echo h > /proc/sysrq-trigger) 2>/dev/null && echo WROTE:sysrq; echo probes-done"
        return (await sb.run(script, timeout=30)).output

    out = run(body())
    assert "probes-done" in out and "WROTE" not in out, out
    assert {k: _host_knob(k) for k in KNOBS} == before


def test_keyrings_are_out_of_reach(new_sandbox) -> None:
    """add_key/keyctl fail inside (EPERM from the filter), so no key can cross episodes or reach the host."""

    async def body() -> tuple[str, str]:
        first = await new_sandbox()
        add = _perl_syscall(ADD_KEY, '"user"', '"jobenv-probe"', '"secret"', "6", "-4")  # KEY_SPEC_USER_KEYRING
        out1 = (await first.run(f"{add}; {add.replace('-4', '-3')}", timeout=30)).output
        second = await new_sandbox()
        read = _perl_syscall(KEYCTL, "0", "-4", "0")  # KEYCTL_GET_KEYRING_ID of the user keyring
        out2 = (await second.run(read, timeout=30)).output
        return out1, out2

    out1, out2 = run(body())
    assert out1.count("rc=-1 errno=1") == 2, out1
    assert "rc=-1 errno=1" in out2, out2


def test_a_seccomp_filter_and_no_new_namespaces(new_sandbox) -> None:
    async def body() -> str:
        sb = await new_sandbox()
        return (await sb.run(
            "grep '^Seccomp:' /proc/self/status; unshare -U true 2>/dev/null || echo unshare-refused; "
            + _perl_syscall(UNSHARE, "0x10000000") + "; "
            + _perl_syscall(MOUNT, '"none"', '"/tmp"', '"tmpfs"', "0", "0"), timeout=30)).output

    out = run(body())
    assert "Seccomp:\t2" in out, out
    assert "unshare-refused" in out, out
    lines = [x for x in out.splitlines() if x.startswith("rc=")]
    assert len(lines) == 2 and all(x.startswith("rc=-1") for x in lines), out


@local_only
def test_no_process_of_a_sandbox_is_host_root(new_sandbox) -> None:
    """From the host: PID 1's uid and the owner of a file a command made are unprivileged, and differ (root)."""

    async def body() -> tuple[int, int, str]:
        sb = await new_sandbox()
        out = (await sb.run("touch output/made; grep -E '^Cap(Eff|Prm|Bnd|Amb):' /proc/self/status")).output
        pid = sb._state["agent_pid"]  # type: ignore[attr-defined]
        pid1_uid = int(Path(f"/proc/{pid}/status").read_text().split("Uid:")[1].split()[0])
        made = os.stat(f"/proc/{pid}/root/workspace/output/made")
        return pid1_uid, made.st_uid, out

    pid1_uid, command_uid, caps = run(body())
    assert pid1_uid != 0 and command_uid != 0
    if os.geteuid() == 0:
        assert pid1_uid != command_uid, "PID 1 and the commands share a uid"
    assert caps.count("0000000000000000") == 4, caps


@local_only
def test_root_sandboxes_get_uids_of_their_own(new_sandbox) -> None:
    if os.geteuid() != 0:
        pytest.skip("as a normal user every sandbox runs as that user by design")

    async def body() -> set[int]:
        owners = set()
        for _ in range(3):
            sb = await new_sandbox()
            await sb.run("touch output/mine")
            owners.add(os.stat(f"/proc/{sb._state['agent_pid']}/root/workspace/output/mine").st_uid)  # type: ignore[attr-defined]
        return owners

    assert len(run(body())) == 3


@local_only
def test_pid_1s_oom_score_is_out_of_a_commands_reach(new_sandbox) -> None:
    async def body() -> tuple[str, str, str]:
        sb = await new_sandbox()
        before = (await sb.run("cat /proc/1/oom_score_adj")).output
        out = (await sb.run("for f in /proc/1/oom_score_adj /proc/1/task/1/oom_score_adj /proc/1/oom_adj; do "
                            "(echo 1000 > $f) 2>/dev/null && echo WROTE:$f; done; echo done")).output
        after = (await sb.run("cat /proc/1/oom_score_adj")).output
        return before, out, after

    before, out, after = run(body())
    assert "done" in out and "WROTE" not in out, out
    assert before == after


@local_only
def test_files_the_tools_write_stay_the_commands_own(new_sandbox, task_dir) -> None:
    """Root's sandboxes run commands as an unprivileged uid: what the host stages or the write tool makes must
    still be theirs to change."""

    async def body() -> str:
        sb = await new_sandbox(task_dir / "task_folder")
        await sb.write_file("output/deep/er/notes.md", b"first\n")
        return (await sb.run("echo second >> output/deep/er/notes.md && echo more >> task_folder/data/sales.csv "
                             "&& mkdir output/deep/er/sub && cat output/deep/er/notes.md")).output

    assert run(body()) == "first\nsecond\n"


# --------------------------------------------------------------------------- root and a normal user, on a wheel install
WHEEL_PROBE = r'''
import asyncio, json, os, sys
from pathlib import Path
from jobenv.errors import SandboxError
from jobenv.sandbox import SandboxLimits, make_sandbox

async def main():
    out = {"euid": os.geteuid()}
    try:
        sb = make_sandbox("local")
        await sb.start(None)
        out["default"] = "started"
        await sb.close()
    except SandboxError as exc:
        out["default"] = str(exc)
    sb = make_sandbox("local", limits=SandboxLimits(unsafe_unbounded_memory=os.geteuid() != 0))
    await sb.start(Path(sys.argv[1]))
    try:
        out["probe"] = (await sb.run(sys.argv[2], timeout=60)).output
        await sb.write_file("output/tool.md", b"from the tool\n")
        out["append"] = (await sb.run("echo appended >> output/tool.md && cat output/tool.md")).output
        pid = sb._state["agent_pid"]
        out["pid1_host_uid"] = int(Path(f"/proc/{pid}/status").read_text().split("Uid:")[1].split()[0])
        out["file_host_uid"] = os.stat(f"/proc/{pid}/root/workspace/output/tool.md").st_uid
    finally:
        await sb.close()
    print(json.dumps(out))

asyncio.run(main())
'''
INSIDE = ("grep '^Seccomp:' /proc/self/status; "
          "(echo 5 > /proc/sys/kernel/printk_ratelimit_burst) 2>/dev/null && echo WROTE; "
          "(echo 1000 > /proc/1/oom_score_adj) 2>/dev/null && echo WROTE; "
          "unshare -U true 2>/dev/null || echo unshare-refused; "
          + _perl_syscall(ADD_KEY, '"user"', '"k"', '"v"', "1", "-4") + "; cat task_folder/TASK_INSTRUCTIONS.txt")


def _plain_python() -> str | None:
    """An interpreter of this version outside any private directory (a normal user must be able to run it)."""
    name = f"python{sys.version_info.major}.{sys.version_info.minor}"
    found = shutil.which(name, path="/usr/local/bin:/usr/bin:/bin")
    return found if found and not found.startswith("/root") else None


def _readable_by_all(path: str) -> bool:
    p = Path(path).resolve()
    for part in [p, *p.parents]:
        mode = part.stat().st_mode
        if not mode & stat.S_IXOTH or not mode & stat.S_IROTH:
            return False
    return True


@pytest.fixture(scope="module")
def wheel_venv(jobenv_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A venv of a system interpreter with the wheel installed (dependencies through a .pth line), in a folder a
    normal user can read; plus a copy of a task there."""
    python = _plain_python()
    deps = sysconfig.get_paths()["purelib"]
    if os.geteuid() == 0 and (python is None or not _readable_by_all(deps)):
        pytest.skip("no interpreter or dependency tree a normal user can read on this machine")
    home = tempfile.mkdtemp(prefix="jobenv-wheel-", dir="/tmp")
    os.chmod(home, 0o755)
    venv = Path(home) / "venv"
    subprocess.run([python or sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "--python",
                    str(venv / "bin" / "python"), "install", "--no-deps", str(jobenv_wheel)], check=True, timeout=600)
    purelib = subprocess.run([str(venv / "bin" / "python"), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "_jobenv_test_deps.pth").write_text(deps + "\n")
    task = Path(home) / "task" / "task_folder"
    task.mkdir(parents=True)
    (task / "TASK_INSTRUCTIONS.txt").write_text("Summarise sales.csv into output/summary.csv\n")
    probe = Path(home) / "probe.py"
    probe.write_text(WHEEL_PROBE)
    subprocess.run(["chmod", "-R", "a+rX", home], check=True)
    yield venv / "bin" / "python", probe, task, home
    shutil.rmtree(home, ignore_errors=True)


def _probe(wheel_venv: Any, as_nobody: bool) -> dict[str, Any]:
    python, probe, task, home = wheel_venv
    prefix = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"] if as_nobody else []
    proc = subprocess.run([*prefix, str(python), str(probe), str(task), INSIDE], capture_output=True, text=True,
                          timeout=300, cwd=home, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _contained(out: dict[str, Any]) -> None:
    probe_out = out["probe"]
    assert "Seccomp:\t2" in probe_out and "WROTE" not in probe_out and "unshare-refused" in probe_out, probe_out
    assert "rc=-1 errno=1" in probe_out and "Summarise sales.csv" in probe_out, probe_out
    assert out["append"] == "from the tool\nappended\n"
    assert out["pid1_host_uid"] != 0 and out["file_host_uid"] != 0


@pytest.mark.slow
def test_as_root_on_a_wheel_install(wheel_venv: Any) -> None:
    if os.geteuid() != 0:
        pytest.skip("the suite runs as a normal user: the other test covers it")
    out = _probe(wheel_venv, as_nobody=False)
    assert out["euid"] == 0 and out["default"] == "started", out
    _contained(out)
    assert out["pid1_host_uid"] != out["file_host_uid"]


@pytest.mark.slow
def test_as_a_normal_user_on_a_wheel_install(wheel_venv: Any) -> None:
    out = _probe(wheel_venv, as_nobody=os.geteuid() == 0)
    assert out["euid"] != 0
    assert "without a memory bound" in out["default"] and "unsafe_unbounded_memory=True" in out["default"], out
    _contained(out)


SHM_FILL = r"""python3 - <<'PY'
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
for i in range(12):  # 12 x 64 MiB of detached SysV segments: far past the sandbox's memory
    sid = libc.shmget(0, 64 << 20, 0o1600)
    if sid < 0:
        print("shmget failed", ctypes.get_errno()); break
    addr = libc.shmat(sid, None, 0)
    ctypes.memset(addr, 7, 64 << 20)
    libc.shmdt(ctypes.c_void_p(addr))
print("filled")
PY
echo after-fill"""


@local_only
def test_memory_pressure_kills_commands_never_pid_1(new_sandbox) -> None:
    """Detached shared memory past the limit: the OOM killer takes a command; PID 1 and the sandbox carry on, and
    what the segments held dies with the sandbox's IPC namespace."""
    if os.geteuid() != 0:
        pytest.skip("memory cgroups are made only as root")

    async def body() -> tuple[str, str, str]:
        sb = await new_sandbox(memory_mb=256)
        before = (await sb.run("echo 1 > output/kept.txt; cat /proc/1/status | grep VmRSS")).output
        fill = (await sb.run(SHM_FILL, timeout=120)).output
        after = (await sb.run("cat output/kept.txt; ls /proc/1 >/dev/null && echo pid1-alive")).output
        return before, fill, after

    _, fill, after = run(body())
    assert "filled" not in fill.splitlines() and "Killed" in fill, fill  # stopped before it held 768 MiB
    assert after.split() == ["1", "pid1-alive"], after


NESTED_PROBE = """
import asyncio
from jobenv.errors import SandboxUnavailableError
from jobenv.sandbox import SandboxLimits, make_sandbox
async def main():
    sb = make_sandbox("local", limits=SandboxLimits(unsafe_unbounded_memory=True))
    try:
        await sb.start(None)
    except SandboxUnavailableError as exc:
        print("REFUSED", exc)
        return
    try:
        print((await sb.run("(echo 5 > /proc/sys/kernel/printk_ratelimit_burst) 2>/dev/null && echo WROTE; "
                            "grep '^Seccomp:' /proc/self/status; echo inside-ok")).output)
    finally:
        await sb.close()
asyncio.run(main())
"""


def test_root_of_a_namespace_mapping_host_root_alone_is_refused(tmp_path: Path) -> None:
    """``unshare -U -r`` run by root: jobenv is root and host root, but the sandbox range is not mapped, so any
    sandbox would be host root: refused, nothing written."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and util-linux unshare to make such a namespace")
    before = _host_knob("kernel/printk_ratelimit_burst")
    proc = subprocess.run(["unshare", "-U", "-r", sys.executable, "-c", NESTED_PROBE], capture_output=True, text=True,
                          timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("REFUSED") and "would be host root" in proc.stdout, proc.stdout + proc.stderr
    assert _host_knob("kernel/printk_ratelimit_burst") == before


@pytest.mark.slow
def test_root_of_a_rootless_namespace_takes_the_normal_users_path(wheel_venv: Any) -> None:
    """Root inside a namespace made by an unprivileged user (a rootless container's root): its sandboxes run as
    that unprivileged uid and stay contained."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root (to become a normal user) and util-linux unshare")
    python, _, _, home = wheel_venv
    probe = Path(home) / "nested.py"
    probe.write_text(NESTED_PROBE)
    probe.chmod(0o644)
    before = _host_knob("kernel/printk_ratelimit_burst")
    proc = subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
                           "unshare", "-U", "-r", str(python), str(probe)], capture_output=True, text=True,
                          timeout=120, cwd=home, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "inside-ok" in proc.stdout and "Seccomp:\t2" in proc.stdout and "WROTE" not in proc.stdout, proc.stdout
    assert _host_knob("kernel/printk_ratelimit_burst") == before
