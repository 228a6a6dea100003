"""The seccomp program itself, run through a small classic-BPF interpreter for both architectures it supports.

The in-sandbox effect is tested in tests/security/test_host_kernel.py on this machine's architecture; this covers the
table of the other one too (a wrong jump or number there would only show on that hardware).
"""

from __future__ import annotations

import struct

import pytest

from jobenv.sandbox.local._seccomp import AUDIT_ARCH, DENIED, SYSCALLS, program

ALLOW, EPERM, ENOSYS = 0x7FFF0000, 0x00050001, 0x00050026
CLONE_NEWUSER, CLONE_VM = 0x10000000, 0x100
# calls every program makes, per architecture: read, write, openat, execve, exit_group, futex, mmap, clone
EVERYDAY = {"x86_64": [0, 1, 257, 59, 231, 202, 9], "aarch64": [63, 64, 56, 221, 94, 98, 222]}


def run_filter(prog: bytes, nr: int, arch: int, arg0: int = 0) -> int:
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    ins = [struct.unpack("=HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = ins[pc]
        if code == 0x20:
            acc = struct.unpack_from("=I", data, k)[0]
            pc += 1
        elif code == 0x06:
            return k
        else:
            taken = {0x15: acc == k, 0x35: acc >= k, 0x45: bool(acc & k)}[code]
            pc += 1 + (jt if taken else jf)


@pytest.mark.parametrize("machine", sorted(AUDIT_ARCH))
def test_the_filter_refuses_the_denied_calls_and_allows_the_rest(machine: str) -> None:
    prog = program(machine)
    assert prog is not None and len(prog) % 8 == 0
    arch, table = AUDIT_ARCH[machine], SYSCALLS[machine]
    for name in DENIED:
        if name in table:
            assert run_filter(prog, table[name], arch) == EPERM, name
    for nr in EVERYDAY[machine]:
        assert run_filter(prog, nr, arch) == ALLOW, nr
    assert run_filter(prog, table["clone"], arch, CLONE_VM) == ALLOW
    assert run_filter(prog, table["clone"], arch, CLONE_VM | CLONE_NEWUSER) == EPERM
    assert run_filter(prog, table["clone3"], arch) == ENOSYS
    assert run_filter(prog, 0, 0x40000003) == ENOSYS  # another ABI (i386) under the same kernel
    if machine == "x86_64":
        assert run_filter(prog, 0x40000000 + 1, arch) == ENOSYS  # x32


def test_no_table_no_program() -> None:
    assert program("s390x") is None
