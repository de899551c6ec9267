"""Issue 33, findings 1-3, and issue 34 item 5 (sandbox part): what one program can pin or leave behind.

The five programs of tests/fakes/cheats.py ``abuse_programs`` (System V shared memory pinned outside the
address-space limit; IPC objects and keys left for the next program; a program reading them; a user
namespace with a tmpfs of its own) run one after the other in one slot, in every sandbox mode this machine
can run, as root and as a normal user (uid 65534, with and without bubblewrap on PATH), and end to end
through ``span-client eval --time-agent``. Each must fail: nothing pinned, nothing left, nothing found, no
key in /proc/key-users after the run; the run still ends with one result line per program.

Also the sandbox's documented guarantees checked one by one (docs/sandbox.md, "What each mode guarantees")
and the seccomp table checked against the kernel headers where they are installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from span_toolkit.client.sandbox import Limits, Sandbox
from span_toolkit.client.sandbox import _seccomp
from span_toolkit.span.benchmark import generate_sample, parse_eval_date
from tests.fakes.cheats import abuse_programs, key_users, mode_unavailable, sandbox_processes, with_syscall_numbers
from tests.fakes.helpers import reexpose_for_another_user

ROOT = Path(__file__).resolve().parent.parent
MODES = ("bwrap", "namespaces", "unsafe-process")
FAST = Limits(wall_seconds=5, cpu_seconds=2, memory_bytes=256 * 2**20)
ARCH = os.uname().machine
SECCOMP = pytest.mark.skipif(not _seccomp.supported(ARCH), reason=f"no seccomp table for {ARCH}")


def need(kind: str) -> None:
    why = mode_unavailable(kind)
    if why:
        pytest.skip(f"--sandbox {kind} cannot run here: {why}")


def programs() -> dict[str, str]:
    return {n: with_syscall_numbers(c) for n, c in abuse_programs().items()}


def check_outputs(out: dict[str, str]) -> None:
    """What each program printed says it got nothing."""
    assert "audit hook disarmed" in out["pin shared memory"]
    assert "pinned MiB 0\n" in out["pin shared memory"], out["pin shared memory"]
    assert "left [] " in out["leave IPC objects"], out["leave IPC objects"]
    assert "left keys []" in out["leave keys"], out["leave keys"]
    assert "found []" in out["read what the last program left"], out["read what the last program left"]
    assert "unshare refused: Operation not permitted" in out["user namespace and tmpfs"], \
        out["user namespace and tmpfs"]


# ------------------------------------------------------------------------------------------ as root
@SECCOMP
@pytest.mark.parametrize("kind", MODES)
async def test_the_five_programs_get_nothing_in_every_mode(kind):
    need(kind)
    before = set(key_users())
    async with Sandbox(kind, limits=FAST, concurrency=1) as sb:
        results = {name: await sb.run(code) for name, code in programs().items()}
    out = {n: r.stdout + r.stderr for n, r in results.items()}
    check_outputs(out)
    assert all(r.exit_reason in ("ok", "error") for r in results.values()), {n: r.exit_reason for n, r in results.items()}
    assert set(key_users()) - before == set()  # no uid holds keys it did not hold before
    assert not sandbox_processes(os.getpid())


@pytest.mark.parametrize("kind", MODES)
async def test_without_the_filter_the_ipc_namespace_alone_keeps_programs_apart(kind):
    """With the seccomp filter off (a testing switch), what one program leaves in System V IPC or a POSIX
    queue is still not seen by the next: each has its own IPC namespace (as root, or in a strong mode)."""
    need(kind)
    if kind == "unsafe-process" and os.geteuid() != 0:
        pytest.skip("unsafe-process as a normal user has no IPC namespace: the filter is its only layer")
    progs = programs()
    async with Sandbox(kind, limits=FAST, concurrency=1, seccomp=False) as sb:
        left = await sb.run(progs["leave IPC objects"])
        read = await sb.run(progs["read what the last program left"])
        own = await sb.run("import os\nprint(os.readlink('/proc/self/ns/ipc'))")
        iso = sb.isolation
    assert "left ['shm', 'msg', 'sem', 'mqueue']" in left.stdout, left.stdout + left.stderr  # it could, here
    assert "found []" in read.stdout, read.stdout + read.stderr
    assert iso["ipc_namespace"] and own.stdout.strip() != os.readlink("/proc/self/ns/ipc")


# ------------------------------------------------------------------------------------------ guarantees
GUARANTEES = r"""
import json, os, resource, socket
g = {}
g["dev"] = sorted(os.listdir("/dev"))
g["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
g["interfaces"] = [n for _, n in socket.if_nameindex()]
g["env"] = sorted(os.environ)
g["cwd"] = os.getcwd()
g["limits"] = {n: resource.getrlimit(getattr(resource, n)) for n in
               ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_CORE")}
st = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
g["cap_eff"], g["no_new_privs"], g["seccomp"] = st["CapEff"].strip(), st["NoNewPrivs"].strip(), st["Seccomp"].strip()
g["top"] = sorted(os.listdir("/"))
try:
    open("/usr/span-write-test", "w")
    g["root_writable"] = True
except OSError:
    g["root_writable"] = False
with open("/tmp/x", "w") as f:
    f.write("x")
g["tmp_writable"] = True
g["tmpfs"] = [l.split()[3] for l in open("/proc/self/mounts") if l.split()[1] == "/tmp"]
print(json.dumps(g))
"""


@pytest.mark.parametrize("kind", ("bwrap", "namespaces"))
async def test_the_documented_guarantees_one_by_one(kind):
    """docs/sandbox.md lists what a strong mode's snippet sees and may do; each line is checked here."""
    need(kind)
    lim = Limits()
    async with Sandbox(kind, concurrency=1, audit_hook=False) as sb:
        r = await sb.run(GUARANTEES)
    assert r.ok, r.stderr
    g = json.loads(r.stdout)
    # /dev: the five devices and the links to the process's own descriptors, nothing else
    assert g["dev"] == sorted(["null", "zero", "full", "random", "urandom", "stdin", "stdout", "stderr", "fd"])
    assert g["pids"] == [1]                          # its own pid namespace: itself only
    assert g["interfaces"] == ["lo"]                 # its own network namespace
    assert g["env"] == ["HOME", "LANG", "PATH", "TMPDIR"]
    assert g["cwd"] == "/tmp" and g["tmp_writable"] and not g["root_writable"]
    assert f"size={4 * lim.file_size_bytes // 1024}k" in g["tmpfs"][-1]
    L = g["limits"]
    assert L["RLIMIT_CPU"] == [lim.cpu_seconds] * 2 and L["RLIMIT_AS"] == [lim.memory_bytes] * 2
    assert L["RLIMIT_FSIZE"] == [lim.file_size_bytes] * 2 and L["RLIMIT_NOFILE"] == [lim.max_open_files] * 2
    assert L["RLIMIT_NPROC"] == [lim.max_processes] * 2 and L["RLIMIT_CORE"] == [0, 0]
    assert int(g["cap_eff"], 16) == 0 and g["no_new_privs"] == "1"
    assert g["seccomp"] == ("2" if _seccomp.supported(ARCH) else "0")  # 2: a filter is installed
    allowed_top = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "dev", "proc", "tmp"}
    extra = set(g["top"]) - allowed_top
    # what else is at the top is a folder on the way to the Python runtime or span (checked by the probe)
    assert all(os.path.realpath(sys.base_prefix).startswith("/" + e) or str(ROOT).startswith("/" + e)
               or any(p.startswith("/" + e) for p in sys.path if p) for e in extra), extra


@SECCOMP
def test_seccomp_numbers_match_the_kernel_headers():
    """The filter's numbers against this machine's <asm/unistd_64.h> (an independent table)."""
    header = next((p for p in ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h")
                   if os.path.exists(p)), None)
    if ARCH != "x86_64" or header is None:
        pytest.skip("x86_64 kernel headers not installed")
    nrs = dict(re.findall(r"#define __NR_(\w+) (\d+)", Path(header).read_text()))
    table = _seccomp.TABLES["x86_64"][2]
    for name, nr in table.items():
        assert int(nrs[name]) == nr, name
    assert set(_seccomp.REFUSED) <= set(table)


def test_seccomp_program_jumps_land_on_returns():
    """Every refused number, simulated through the BPF program, ends at EPERM; clone3 at ENOSYS; clone with a
    CLONE_NEW* flag at EPERM and without one at ALLOW; an ordinary call (read) at ALLOW; a foreign arch KILL."""
    import struct

    for machine in ("x86_64", "aarch64"):
        prog = _seccomp.program(machine)
        arch, _, nrs = _seccomp.TABLES[machine]

        def run(nr, arg0=0, a=arch):
            data = struct.pack("=iIQ6Q", nr, a, 0, arg0, 0, 0, 0, 0, 0)
            pc, acc = 0, 0
            while True:
                code, jt, jf, k = prog[pc]
                if code == 0x20:
                    acc = struct.unpack_from("=I", data, k)[0]
                elif code == 0x06:
                    return k
                elif code == 0x15:
                    pc += jt if acc == k else jf
                elif code == 0x35:
                    pc += jt if acc >= k else jf
                elif code == 0x45:
                    pc += jt if acc & k else jf
                pc += 1

        for name in _seccomp.REFUSED:
            assert run(nrs[name]) == _seccomp.RET_ERRNO | _seccomp.EPERM, (machine, name)
        assert run(nrs["clone3"]) == _seccomp.RET_ERRNO | _seccomp.ENOSYS
        assert run(nrs["clone"], 0x10000000 | 17) == _seccomp.RET_ERRNO | _seccomp.EPERM
        assert run(nrs["clone"], 0x01200011) == _seccomp.RET_ALLOW  # what fork() passes
        assert run(0 if machine == "x86_64" else 63) == _seccomp.RET_ALLOW  # read
        assert run(3, a=0x40000003) == _seccomp.RET_KILL_PROCESS  # i386 int 0x80
    assert _seccomp.program("x86_64") and run(0x40000000 + 1, a=0xC000003E) is not None


# ------------------------------------------------------------------------------------------ as a user
AS_USER = r"""
import asyncio, json, sys
from span_toolkit.client.sandbox import Limits, Sandbox
from tests.fakes.cheats import abuse_programs, key_users, with_syscall_numbers

async def main():
    out = {}
    for kind in sys.argv[1].split(","):
        try:
            async with Sandbox(kind, limits=Limits(wall_seconds=5, cpu_seconds=2, memory_bytes=256 * 2**20)) as sb:
                res = {n: await sb.run(with_syscall_numbers(c)) for n, c in abuse_programs().items()}
                out[kind] = {"kind": sb.kind, "isolation": sb.isolation,
                             "out": {n: r.stdout + r.stderr for n, r in res.items()}}
        except Exception as e:
            out[kind] = {"error": str(e)}
        if kind == "namespaces":  # the filter off: its user namespace's own limit (0 below it) still holds
            async with Sandbox(kind, seccomp=False) as sb:
                r = await sb.run(with_syscall_numbers(abuse_programs()["user namespace and tmpfs"]))
                out[kind]["userns_without_filter"] = r.stdout + r.stderr
    out["key_users"] = sorted(key_users())
    print(json.dumps(out))

asyncio.run(main())
"""


def run_as_user(code: str, argv: list[str], tmp_path: Path, *, hide_bwrap: bool, timeout: float = 300):
    """Run ``python -c code argv…`` as uid 65534 in a private mount namespace that re-exposes the Python
    installation and this checkout when a folder above them is closed to others (here /root, 0700), and,
    with ``hide_bwrap``, covers the bwrap binary (no bubblewrap on PATH)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to become uid 65534")
    if not (shutil.which("unshare") and shutil.which("setpriv")):
        pytest.skip("needs unshare and setpriv (util-linux)")
    setup = reexpose_for_another_user([sys.base_prefix, sys.prefix, ROOT], tmp_path)
    bw = shutil.which("bwrap")
    if hide_bwrap and bw:
        setup.append(f"mount --bind /dev/null {bw}")
    quoted = " ".join(f"'{a}'" for a in argv)
    script = "set -e\n" + "\n".join(setup) + (
        f"\ncd /tmp\nexec setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin HOME=/tmp "
        f"PYTHONPATH={ROOT} {sys.executable} -c \"$0\" {quoted}")
    return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, code],
                          capture_output=True, text=True, timeout=timeout)


@SECCOMP
@pytest.mark.parametrize("hide_bwrap", [False, True], ids=["bwrap-on-path", "no-bwrap"])
def test_the_five_programs_get_nothing_as_a_normal_user(tmp_path, hide_bwrap):
    kinds = ["auto", "namespaces", "unsafe-process"] + ([] if hide_bwrap else ["bwrap"])
    r = run_as_user(AS_USER, [",".join(kinds)], tmp_path, hide_bwrap=hide_bwrap)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    # without bwrap, auto builds its namespaces itself, without root (unprivileged user namespaces)
    assert out["auto"].get("kind") == ("namespaces" if hide_bwrap else "bwrap"), out["auto"]
    for kind in kinds:
        assert "error" not in out[kind], (kind, out[kind])
        check_outputs(out[kind]["out"])
        if kind != "unsafe-process":
            iso = out[kind]["isolation"]
            assert iso["pid_namespace"] and iso["private_root"] and iso["network_namespace"] and iso["ipc_namespace"]
        if kind == "namespaces":
            assert "unshare refused: No space left on device" in out[kind]["userns_without_filter"], out[kind]
    assert 65534 not in out["key_users"]


# ------------------------------------------------------------------------------------------ end to end
def test_the_five_programs_through_eval_leave_every_result_line(tmp_path):
    """`eval --time-agent` with a model that writes the five programs: every instance gets its line, each
    program's output shows it got nothing, and no slot uid holds a key afterwards."""
    from tests.fakes.providers import FakeOpenAI, Text, first_user_text

    need("auto")
    progs = programs()
    items = list(generate_sample([parse_eval_date("2025-07-01")], len(progs), seed=33))
    by_question = dict(zip((i["question"] for i in items), progs.values()))
    inst = tmp_path / "instances.jsonl"
    inst.write_text("".join(json.dumps(i) + "\n" for i in items))
    before = set(key_users())

    def coder(body, index):
        if len([m for m in body["messages"] if m["role"] == "user"]) == 1:
            return Text("```python\n" + by_question[first_user_text(body)] + "```")
        return Text("Final answer: 1")

    with FakeOpenAI(coder) as fake:
        r = subprocess.run([sys.executable, "-m", "span_toolkit.client.cli", "eval", "--model",
                            "openai-compatible/abuser", "--base-url", fake.base_url, "--api-key", "none",
                            "--time-agent", "--instances", str(inst), "--out", str(tmp_path / "run"),
                            "--max-turns", "1", "--concurrency", "1", "--quiet"],
                           capture_output=True, text=True, timeout=240,
                           env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
                                "HOME": str(tmp_path), "LANG": "C.UTF-8"})
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [json.loads(x) for x in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert sorted(l["id"] for l in lines) == sorted(i["id"] for i in items)
    out = {}
    for line in lines:
        run = line["code_runs"][0]
        name = next(n for n, c in progs.items() if c == run["code"])
        out[name] = run["stdout"] + run["stderr"]
    check_outputs(out)
    time.sleep(0.2)
    assert set(key_users()) - before == set()


# ------------------------------------------------------------------------------------------ issue 34.5
DEMO = "import sys\nfrom span_toolkit.client.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def test_demo_as_a_normal_user_without_bwrap_ends_with_a_report(tmp_path):
    """`span-client demo` as uid 65534 with no bwrap on PATH: --sandbox auto builds its namespaces itself
    (unprivileged user namespaces), all three arms run and the report is written."""
    import tempfile

    out = Path(tempfile.mkdtemp(prefix="span-demo-user-"))
    try:
        os.chmod(out, 0o777)
        r = run_as_user(DEMO, ["demo", "--out", str(out / "demo"), "--sample", "12", "--no-figures", "--quiet",
                               "--concurrency", "2"], tmp_path, hide_bwrap=True, timeout=600)
        assert r.returncode == 0, (r.stdout[-1500:], r.stderr[-2000:])
        assert "reference-code agent as a Time Agent" in r.stdout
        assert (out / "demo" / "report").is_dir() and any((out / "demo" / "report").iterdir())
        info = json.loads((out / "demo" / "reference-code-time_agent" / "run.json").read_text())
        assert info["sandbox"]["kind"] == "namespaces"
        assert "unsafe-process" not in r.stderr
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_trusted_code_falls_back_to_unsafe_process_where_nothing_isolates(monkeypatch):
    """Where no strong mode works, the demo's own scripted programs still run, with a note; a model's code
    (eval --time-agent) is not affected: Sandbox('auto') keeps refusing."""
    from span_toolkit.client.sandbox import SandboxError, trusted
    from span_toolkit.client.sandbox import pool

    monkeypatch.setattr(pool.Sandbox, "_unavailable", lambda self, kind: "not here" if kind != "unsafe-process" else None)
    kind, note = trusted.trusted_code_kind("auto")
    assert kind == "unsafe-process" and "not a model's" in note and "--sandbox unsafe-process" in note
    assert trusted.trusted_code_kind("bwrap") == ("bwrap", None)

    async def start():
        async with Sandbox("auto"):
            pass

    import asyncio
    with pytest.raises(SandboxError, match="no sandbox that hides"):
        asyncio.run(start())
