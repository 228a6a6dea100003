"""The seccomp filter every local sandbox runs under (loaded by bubblewrap's ``--seccomp`` before PID 1 starts).

In the spirit of Docker's default profile: the calls a sandboxed command has no business making fail with
``EPERM`` — the kernel keyrings (a channel between episodes and to the host), ``ptrace`` and cross-process memory
access, mounts and the new mount API, kernel modules, ``kexec``, ``bpf``, ``perf_event_open``, ``userfaultfd``,
``io_uring``, clocks, swap, reboot, quotas, file handles, and every way to make or join a namespace (``unshare``,
``setns``, ``clone`` with a namespace flag). ``clone3`` answers ``ENOSYS``, so C libraries fall back to ``clone``,
whose flags the filter can read. Calls of another ABI (x32, i386 on x86-64) answer ``ENOSYS`` too.

The program is plain classic BPF, built here from syscall numbers of x86-64 and aarch64; on another architecture
:func:`program` returns None and every sandbox start warns that it runs without the filter (never a silent claim).
"""

from __future__ import annotations

import errno
import functools
import platform
import struct

__all__ = ["program", "DENIED", "architecture_supported", "AUDIT_ARCH", "SYSCALLS"]

DENIED = (
    "add_key", "request_key", "keyctl",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "process_madvise",
    "mount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick",
    "mount_setattr", "unshare", "setns",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "bpf", "perf_event_open",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "swapon", "swapoff", "reboot", "acct", "syslog",
    "quotactl", "quotactl_fd", "nfsservctl", "vhangup", "lookup_dcookie", "name_to_handle_at", "open_by_handle_at",
    "fanotify_init", "move_pages", "sethostname", "setdomainname", "iopl", "ioperm",
)

_X86_64 = {
    "add_key": 248, "request_key": 249, "keyctl": 250, "ptrace": 101, "process_vm_readv": 310,
    "process_vm_writev": 311, "kcmp": 312, "pidfd_getfd": 438, "process_madvise": 440, "mount": 165, "umount2": 166,
    "pivot_root": 155, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "mount_setattr": 442, "unshare": 272, "setns": 308, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320, "bpf": 321, "perf_event_open": 298,
    "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159, "swapon": 167,
    "swapoff": 168, "reboot": 169, "acct": 163, "syslog": 103, "quotactl": 179, "quotactl_fd": 443,
    "nfsservctl": 180, "vhangup": 153, "lookup_dcookie": 212, "name_to_handle_at": 303, "open_by_handle_at": 304,
    "fanotify_init": 300, "move_pages": 279, "sethostname": 170, "setdomainname": 171, "iopl": 172, "ioperm": 173,
    "clone": 56, "clone3": 435,
}
_AARCH64 = {
    "add_key": 217, "request_key": 218, "keyctl": 219, "ptrace": 117, "process_vm_readv": 270,
    "process_vm_writev": 271, "kcmp": 272, "pidfd_getfd": 438, "process_madvise": 440, "mount": 40, "umount2": 39,
    "pivot_root": 41, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "mount_setattr": 442, "unshare": 97, "setns": 268, "init_module": 105, "finit_module": 273,
    "delete_module": 106, "kexec_load": 104, "kexec_file_load": 294, "bpf": 280, "perf_event_open": 241,
    "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "settimeofday": 170, "clock_settime": 112, "clock_adjtime": 266, "adjtimex": 171, "swapon": 224,
    "swapoff": 225, "reboot": 142, "acct": 89, "syslog": 116, "quotactl": 60, "quotactl_fd": 443,
    "nfsservctl": 42, "vhangup": 58, "lookup_dcookie": 18, "name_to_handle_at": 264, "open_by_handle_at": 265,
    "fanotify_init": 262, "move_pages": 239, "sethostname": 161, "setdomainname": 162,
    "clone": 220, "clone3": 435,
}
# machine -> (AUDIT_ARCH value, syscall table, first number of a foreign ABI sharing the arch value or None)
_ARCHES = {"x86_64": (0xC000003E, _X86_64, 0x40000000), "aarch64": (0xC00000B7, _AARCH64, None)}
AUDIT_ARCH = {m: a[0] for m, a in _ARCHES.items()}
SYSCALLS = {m: a[1] for m, a in _ARCHES.items()}
_CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x80

_LD_W_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW = 0x7FFF0000
_EPERM = 0x00050000 | errno.EPERM
_ENOSYS = 0x00050000 | errno.ENOSYS
_OFF_NR, _OFF_ARCH, _OFF_ARG0 = 0, 4, 16  # struct seccomp_data; arg0's low half on a little-endian machine


def architecture_supported() -> bool:
    return platform.machine() in _ARCHES


@functools.lru_cache(maxsize=4)
def program(machine: str | None = None) -> bytes | None:
    """The filter as an array of ``struct sock_filter`` (what ``bwrap --seccomp FD`` reads) for ``machine``
    (default: this one), or None when that architecture has no table here."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, table, foreign_abi = arch
    # (opcode, k, true label, false label); a label is an index into `ins` once `ins` is complete
    ins: list[tuple[int, int, str | None, str | None]] = [
        (_LD_W_ABS, _OFF_ARCH, None, None),
        (_JEQ, audit_arch, None, "enosys"),
        (_LD_W_ABS, _OFF_NR, None, None),
    ]
    if foreign_abi is not None:
        ins.append((_JGE, foreign_abi, "enosys", None))
    ins.append((_JEQ, table["clone3"], "enosys", None))
    ins.append((_JEQ, table["clone"], "clone", None))
    for name in DENIED:
        if name in table:
            ins.append((_JEQ, table[name], "eperm", None))
    labels: dict[str, int] = {}
    ins.append((_RET, _ALLOW, None, None))
    labels["clone"] = len(ins)
    ins += [(_LD_W_ABS, _OFF_ARG0, None, None), (_JSET, _CLONE_NAMESPACES, "eperm", None), (_RET, _ALLOW, None, None)]
    labels["eperm"] = len(ins)
    ins.append((_RET, _EPERM, None, None))
    labels["enosys"] = len(ins)
    ins.append((_RET, _ENOSYS, None, None))
    out = bytearray()
    for i, (code, k, jt, jf) in enumerate(ins):
        t = labels[jt] - i - 1 if jt else 0
        f = labels[jf] - i - 1 if jf else 0
        if not (0 <= t < 256 and 0 <= f < 256):
            raise ValueError("seccomp program too long for an 8-bit jump")  # a programming error, never input
        out += struct.pack("=HBBI", code, t, f, k)
    return bytes(out)
