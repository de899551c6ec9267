"""A seccomp filter for one snippet: the system calls a calendar program never needs, refused by the kernel.

Loaded by path by the zygote (``_child.py`` runs as a script with ``-I`` and never imports ``client``), and
imported normally by the tests, which check the numbers against the kernel headers where they are installed.

What it refuses, and why (issue 33):

* keyrings (``add_key``, ``request_key``, ``keyctl``): a key added to a uid's keyring outlives the
  process, the namespaces and the run;
* System V IPC (shared memory, message queues, semaphores) and POSIX message queues: memory that no
  rlimit counts and that outlives the process; ``memfd_create``/``memfd_secret``: memory reachable
  without a mapping;
* new namespaces: ``unshare`` and ``setns`` always; ``clone`` with any ``CLONE_NEW*`` flag; ``clone3``
  (its flags sit behind a pointer the filter cannot read) answers ENOSYS, so a C library falls back to
  ``clone``. Without a new user namespace the snippet gets no capability back, hence no mount, no tmpfs;
* mounting and root changes (``mount``, ``umount2``, ``pivot_root``, ``chroot`` and the new mount API),
  ``ptrace`` and ``process_vm_*``, ``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring_*``.

A call from another ABI than the process's own (``int 0x80`` on x86_64, the x32 ABI) kills the process.
Refused calls fail with EPERM (ENOSYS for ``clone3``). Architectures without a table here get no filter;
``supported()`` says so and the sandbox records it.
"""

from __future__ import annotations

import struct

# seccomp constants (linux/seccomp.h, linux/filter.h, linux/audit.h)
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
EPERM, ENOSYS = 1, 38
_LD_W_ABS = 0x20   # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15      # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x35      # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x45     # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06      # BPF_RET | BPF_K
_OFF_NR, _OFF_ARCH, _OFF_ARG0_LO = 0, 4, 16  # struct seccomp_data, little-endian

# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET | NEWTIME
CLONE_NEW_MASK = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x80

REFUSED = ("add_key", "request_key", "keyctl",
           "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
           "semctl", "semtimedop", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
           "mq_getsetattr", "memfd_create", "memfd_secret",
           "unshare", "setns",
           "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
           "fspick", "mount_setattr",
           "ptrace", "process_vm_readv", "process_vm_writev", "bpf", "perf_event_open", "userfaultfd",
           "io_uring_setup", "io_uring_enter", "io_uring_register")

# Numbers per architecture: (AUDIT_ARCH, first number of a foreign ABI to kill or None, {name: nr}).
_X86_64 = {"add_key": 248, "request_key": 249, "keyctl": 250, "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67,
           "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "semget": 64, "semop": 65, "semctl": 66,
           "semtimedop": 220, "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243,
           "mq_notify": 244, "mq_getsetattr": 245, "memfd_create": 319, "memfd_secret": 447, "unshare": 272,
           "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428,
           "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
           "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "bpf": 321, "perf_event_open": 298,
           "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
           "clone": 56, "clone3": 435}
_GENERIC = {"add_key": 217, "request_key": 218, "keyctl": 219, "shmget": 194, "shmctl": 195, "shmat": 196,
            "shmdt": 197, "msgget": 186, "msgctl": 187, "msgrcv": 188, "msgsnd": 189, "semget": 190, "semctl": 191,
            "semtimedop": 192, "semop": 193, "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182,
            "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185, "memfd_create": 279,
            "memfd_secret": 447, "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41,
            "chroot": 51, "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
            "fspick": 433, "mount_setattr": 442, "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271,
            "bpf": 280, "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426,
            "io_uring_register": 427, "clone": 220, "clone3": 435}
TABLES = {"x86_64": (0xC000003E, 0x40000000, _X86_64), "amd64": (0xC000003E, 0x40000000, _X86_64),
          "aarch64": (0xC00000B7, None, _GENERIC), "arm64": (0xC00000B7, None, _GENERIC)}


def supported(machine: str) -> bool:
    return machine in TABLES


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The BPF program as (code, jt, jf, k) instructions."""
    arch, foreign, nrs = TABLES[machine]
    ins: list[tuple[int, int, int, int]] = []
    refused = sorted({nrs[n] for n in REFUSED if n in nrs})
    # 0: arch check; a foreign ABI is killed
    ins.append((_LD_W_ABS, 0, 0, _OFF_ARCH))
    ins.append((_JEQ_K, 1, 0, arch))
    ins.append((_RET_K, 0, 0, RET_KILL_PROCESS))
    ins.append((_LD_W_ABS, 0, 0, _OFF_NR))
    if foreign is not None:
        ins.append((_JGE_K, 0, 1, foreign))
        ins.append((_RET_K, 0, 0, RET_KILL_PROCESS))
    # each refused number jumps to the EPERM return placed after the list
    n = len(refused)
    for i, nr in enumerate(refused):
        # after this jump: the remaining (n - i - 1) checks, then clone3 (2), clone (3): EPERM is next
        ins.append((_JEQ_K, (n - i - 1) + 5 + 1, 0, nr))
    ins.append((_JEQ_K, 0, 1, nrs["clone3"]))                  # clone3 -> ENOSYS
    ins.append((_RET_K, 0, 0, RET_ERRNO | ENOSYS))
    ins.append((_JEQ_K, 0, 2, nrs["clone"]))                    # clone: look at its flags
    ins.append((_LD_W_ABS, 0, 0, _OFF_ARG0_LO))
    ins.append((_JSET_K, 1, 0, CLONE_NEW_MASK))                 # a CLONE_NEW* flag -> EPERM
    ins.append((_RET_K, 0, 0, RET_ALLOW))
    ins.append((_RET_K, 0, 0, RET_ERRNO | EPERM))
    return ins


_BUILT: dict = {}  # machine -> (buffer, sock_fprog): built once in the zygote, reused by every snippet


def _built(machine: str):
    import ctypes

    if machine not in _BUILT:
        ins = program(machine)
        raw = b"".join(struct.pack("=HBBI", *i) for i in ins)
        buf = ctypes.create_string_buffer(raw, len(raw))

        class _Prog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

        _BUILT[machine] = (buf, _Prog(len(ins), ctypes.cast(buf, ctypes.c_void_p)))
    return _BUILT[machine][1]


def install(libc, machine: str) -> bool:
    """Install the filter on this process (no_new_privs must be set). False: no table for this machine."""
    import ctypes

    if machine not in TABLES:
        return False
    prog = _built(machine)
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        import os

        raise OSError(err, f"seccomp filter: {os.strerror(err)}")
    return True
