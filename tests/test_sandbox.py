"""The sandbox for model-written code (client/sandbox): results, limits, hostile snippets and cheats.

Every mode this machine can run is tested (bwrap and namespaces need bubblewrap / root; a mode whose
prerequisites are here must work, or the test fails). Each hostile snippet must end with a recorded
result, leave this (the client's) process alive, no file outside the sandbox and no process behind. The
same snippets run again without the audit hook (``audit_hook=False``): no guarantee may rest on the hook.
The cheats of tests/fakes/cheats.py hunt for a gold file, a key on a command line, outside sockets and an
outside process (one running as the snippet's own uid): the strong modes must give them nothing;
``unsafe-process`` is the positive control that shows the same programs do find them where they can.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path

import pytest

from span_toolkit.client.sandbox import EXIT_REASONS, ExecResult, Limits, Sandbox, SandboxError, run_code
from span_toolkit.client.sandbox.procs import classify
from span_toolkit.client.sandbox.rootfs import RootPlan
from tests.fakes.cheats import Bait, mode_unavailable, programs, sandbox_folders, sandbox_processes

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="uid drop, network and mount namespaces need root")
STRONG = ("bwrap", "namespaces")
MODES = (*STRONG, "unsafe-process")

FAST = Limits(wall_seconds=3, cpu_seconds=1, memory_bytes=256 * 2**20, max_output_bytes=64 * 1024)
SECRET = "sk-secret-test-value-1234"
MARK = "span_sandbox_escape_marker"


def need(kind: str) -> None:
    why = mode_unavailable(kind)
    if why:
        pytest.skip(f"--sandbox {kind} cannot run here: {why}")


def _expect(strong: bool, hook: bool, *, both=None, strong_hook=None, strong_bare=None, weak_hook=None,
            weak_bare=None) -> set[str]:
    table = {(True, True): strong_hook, (True, False): strong_bare, (False, True): weak_hook,
             (False, False): weak_bare}
    return table[(strong, hook)] or both


# name -> (code, expected exit reasons by (strong mode?, audit hook?)). "ok" is expected only where the
# snippet did something harmless (wrote its own private /tmp); containment is then checked from outside.
HOSTILE = {
    "infinite_loop": ("while True:\n    pass\n", dict(both={"cpu", "timeout"})),
    "memory_bomb": ("x = bytearray(8 * 2**30)\n", dict(both={"memory"})),
    "memory_creep": ("chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 2**20))\n", dict(both={"memory"})),
    "fork_bomb": ("import os\nwhile True:\n    os.fork()\n", dict(both={"error"})),
    "socket_connect": ("import socket\ns = socket.socket()\ns.settimeout(2)\ns.connect((b'127.0.0.1', {port}))\n"
                       "print('connected')\n", dict(both={"error"})),
    "write_home": ("open({home!r} + '/" + MARK + "', 'w').write('x')\n", dict(both={"error"})),
    "write_real_home": ("open({real_home!r} + '/" + MARK + "', 'w').write('x')\n", dict(both={"error"})),
    "write_tmp": ("open('/tmp/" + MARK + "', 'w').write('x')\nprint(open('/tmp/" + MARK + "').read())\n",
                  dict(both={"error"}, strong_hook={"ok"}, strong_bare={"ok"})),
    "read_secret_env": ("import os\nprint(os.environ['OPENAI_API_KEY'])\n", dict(both={"error"})),
    "read_parent_environ": ("import os\nprint(open(f'/proc/{{os.getppid()}}/environ').read())\n"
                            "print(open('/proc/{client_pid}/environ').read())\n", dict(both={"error"})),
    # in a pid namespace getppid() is 0 and kill(0, …) is its own process group: itself, pid 1, immune
    "kill_parent": ("import os\nos.kill(os.getppid(), 9)\n", dict(both={"error"}, strong_bare={"ok"})),
    "kill_client": ("import os\nos.kill({client_pid}, 9)\n", dict(both={"error"})),
    "sys_exit": ("import sys\nsys.exit(3)\n", dict(both={"error"})),
    "print_100mb": ("import sys\nsys.stdout.write('x' * (100 * 2**20))\n", dict(both={"output_limit"})),
    "subprocess": ("import subprocess\nsubprocess.run(['id'])\n", dict(both={"error"})),
}


@pytest.fixture
def listener():
    """A loopback TCP port that records whether anything connected."""
    import socket

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.setblocking(False)
    yield srv
    srv.close()


def _accepted(srv) -> bool:
    try:
        conn, _ = srv.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


@pytest.fixture
def secret_env(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o777)  # writable by anyone: only the sandbox can stop a write there
    return home


async def _hostile_round(kind: str, home: Path, srv, *, audit_hook: bool = True) -> dict:
    port = srv.getsockname()[1]
    results = {}
    before = set(sandbox_processes(os.getpid()))
    t0 = time.monotonic()
    async with Sandbox(kind, limits=FAST, audit_hook=audit_hook) as sb:
        assert sb.kind == kind
        for name, (code, _) in HOSTILE.items():
            code = code.format(port=port, home=str(home), real_home=str(Path.home()), client_pid=os.getpid())
            results[name] = await sb.run(code)
        root = sb._root
        assert (await sb.run("print('still here')")).stdout == "still here\n"
    elapsed = time.monotonic() - t0
    assert elapsed < 60, f"hostile snippets took {elapsed:.1f} s"
    assert root is None or not Path(root).exists(), "the sandbox directory was not removed"
    assert not (home / MARK).exists() and not Path("/tmp", MARK).exists()
    assert not Path.home().joinpath(MARK).exists()
    assert not _accepted(srv), "a snippet reached the loopback listener"
    left = _still_running(before)
    assert not left, f"processes left behind: {left}"
    return results


def _still_running(before: set[int], grace: float = 3.0) -> set[int]:
    """The sandbox processes beyond ``before`` that outlive a short grace: a pid namespace's members die
    with its first process, but the kernel takes them down asynchronously (slower on a loaded machine)."""
    deadline = time.monotonic() + grace
    while True:
        left = set(sandbox_processes(os.getpid())) - before
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def _check_contained(results: dict, strong: bool, hook: bool) -> None:
    for name, res in results.items():
        want = _expect(strong, hook, **HOSTILE[name][1])
        assert res.exit_reason in want, f"{name}: {res.exit_reason} ({res.stderr[-300:]!r})"
        assert SECRET not in res.stdout and SECRET not in res.stderr, name
    assert results["sys_exit"].returncode == 3
    big = results["print_100mb"]
    assert big.truncated and len(big.stdout.encode()) <= FAST.max_output_bytes
    assert "KeyError" in results["read_secret_env"].stderr


@pytest.mark.parametrize("kind", MODES)
async def test_hostile_snippets_are_contained(kind, secret_env, listener):
    need(kind)
    results = await _hostile_round(kind, secret_env, listener)
    _check_contained(results, kind in STRONG, True)
    assert "os.fork is not allowed" in results["fork_bomb"].stderr  # the audit hook answered first
    if kind in STRONG:
        assert results["write_tmp"].stdout == "x\n"  # its own /tmp, gone with it


@ROOT_ONLY
@pytest.mark.parametrize("kind", MODES)
async def test_os_layers_contain_hostile_snippets_without_the_audit_hook(kind, secret_env, listener):
    """The kernel-enforced layers alone (uid, rlimits, namespaces, read-only mounts)."""
    need(kind)
    results = await _hostile_round(kind, secret_env, listener, audit_hook=False)
    _check_contained(results, kind in STRONG, False)
    assert "Resource temporarily unavailable" in results["fork_bomb"].stderr  # RLIMIT_NPROC
    assert ("Network is unreachable" in results["socket_connect"].stderr      # empty network namespace
            or "Connection refused" in results["socket_connect"].stderr)     # bwrap's: loopback only
    if kind in STRONG:
        assert "No such file or directory" in results["write_home"].stderr    # not in its file system
    else:
        assert "Read-only file system" in results["write_tmp"].stderr         # private read-only mounts
        assert "Operation not permitted" in results["kill_client"].stderr     # a different uid


# ------------------------------------------------------------------------------------------ cheats

async def _cheat_round(kind: str, audit_hook: bool) -> tuple[dict, Bait]:
    sb = Sandbox(kind, limits=Limits(wall_seconds=10, cpu_seconds=5), audit_hook=audit_hook)
    # The signal target runs as the snippets' own uid: only a pid namespace keeps them apart.
    with Bait(target_uid=sb._uids[0] if sb._uids else None) as bait:
        async with sb:
            results = {name: await sb.run(code) for name, code in programs(bait).items()}
            await asyncio.sleep(0.3)  # a signal, had one arrived, is reported by now
            # (before close: the close sweeps the slot uids, the target's too)
            bait.seen_signals, bait.seen_connections = bait.signals(), bait.connections()
            bait.was_alive = bait.target_alive()
        bait.planted = (bait.dir / "open" / "planted.txt").exists() or Path("/planted-by-snippet.txt").exists()
    return results, bait


@pytest.mark.parametrize("audit_hook", [True, False], ids=["hook", "no-hook"])
@pytest.mark.parametrize("kind", STRONG)
async def test_strong_modes_give_a_cheater_nothing(kind, audit_hook):
    need(kind)
    results, bait = await _cheat_round(kind, audit_hook)
    for name, res in results.items():
        text = res.stdout + res.stderr
        assert bait.secret not in text and bait.gold_marker not in text, (name, text[-500:])
    assert "processes visible: 1\n" in results["key search over /proc"].stdout
    assert "signalled []" in results["signal outside"].stdout
    assert "FileNotFoundError" in results["filesystem unix socket"].stderr
    assert "Connection refused" in results["abstract unix socket"].stderr
    assert bait.seen_connections == 0 and bait.seen_signals == "" and bait.was_alive and not bait.planted
    if audit_hook:
        assert all("audit hook disarmed" in r.stdout for r in results.values())  # it was, and it did not matter


@ROOT_ONLY
async def test_unsafe_process_is_the_positive_control():
    """The same cheats, where the host is visible: they find the gold file, the key on a command line, the
    filesystem socket and the process running as their uid. What unsafe-process still stops (as root):
    the network (abstract sockets live in the network namespace), writes outside, other uids."""
    need("unsafe-process")
    results, bait = await _cheat_round("unsafe-process", True)
    assert bait.gold_marker in results["gold search over the file system"].stdout
    assert bait.secret in results["key search over /proc"].stdout
    assert bait.secret in results["filesystem unix socket"].stdout
    assert "got-USR1" in bait.seen_signals
    assert bait.secret not in results["abstract unix socket"].stdout + results["loopback tcp"].stdout
    assert not bait.planted


@ROOT_ONLY
async def test_bwrap_with_a_user_namespace_drops_every_capability(monkeypatch):
    """What a normal user gets under bwrap (no dedicated uid to drop to: uid 0 of a user namespace, every
    capability given up before the snippet runs), forced here as root by having no slot uids."""
    need("bwrap")
    import span_toolkit.client.sandbox.pool as runner

    monkeypatch.setattr(runner, "slot_uids", lambda n: None)
    sb = Sandbox("bwrap")
    with Bait() as bait:
        async with sb:
            assert sb.isolation["uid_drop"] is False and sb.isolation["pid_namespace"]
            res = await sb.run("import os\nprint(os.getuid(), open('/proc/self/status').read().split('CapEff:')[1]"
                               ".split()[0])")
            assert res.ok and res.stdout == "0 0000000000000000\n", res.stderr
            cheats = programs(bait)
            for name in ("gold search over the file system", "key search over /proc", "filesystem unix socket",
                         "abstract unix socket", "write outside"):
                r = await sb.run(cheats[name])
                assert bait.secret not in r.stdout and bait.gold_marker not in r.stdout, (name, r.stdout)
        assert bait.connections() == 0


# ------------------------------------------------------------------------------------------ start-up

def test_a_probe_that_sees_too_much_refuses_the_mode():
    sb = Sandbox("namespaces")
    sb.kind = "namespaces"
    sb._plan = RootPlan(("/usr", "/opt/py"), (("usr/lib", "/lib"),), ("/opt/py/lib",))
    good = {"pid": 1, "pids": [1], "interfaces": ["lo"], "mounts": [["/", True], ["/tmp", False], ["/proc", False]],
            "uid": 7, "cap_eff": 0, "cwd": "/tmp", "cwd_entries": [],
            "paths": ["/usr", "/opt", "/opt/py", "/lib", "/tmp", "/proc", "/dev"],
            "dev": ["fd", "full", "null", "random", "stderr", "stdin", "stdout", "urandom", "zero"],
            "ipc_ns": "ipc:[1]", "kernel": {"userns": True, "shm": True, "keyring": True}}
    sb._verify(good, 7)
    for change, needle in [({"pids": [1, 40]}, "other processes"), ({"interfaces": ["lo", "eth0"]}, "network"),
                           ({"mounts": [["/", False]]}, "writable mounts"),
                           ({"paths": [*good["paths"], "/home/me/runs"]}, "/home/me/runs"),
                           ({"cwd_entries": ["left-over"]}, "fresh, empty /tmp"), ({"uid": 0}, "uid 0"),
                           ({"cap_eff": 1 << 21}, "capabilities"), ({"dev": [*good["dev"], "tty"]}, "/dev holds"),
                           ({"ipc_ns": os.readlink("/proc/self/ns/ipc")}, "IPC namespace"),
                           ({"kernel": {"userns": False, "shm": True}}, "lets it use userns")]:
        if change.get("kernel") and not __import__(
                "span_toolkit.client.sandbox._seccomp", fromlist=["x"]).supported(os.uname().machine):
            continue
        with pytest.raises(SandboxError, match=needle):
            sb._verify({**good, **change}, 7)


async def test_auto_refuses_with_one_line_naming_what_to_install(monkeypatch):
    monkeypatch.setattr(Sandbox, "_unavailable", lambda self, kind: "not here")
    with pytest.raises(SandboxError) as e:
        await Sandbox("auto").start()
    msg = str(e.value)
    assert "\n" not in msg and "apt-get install bubblewrap" in msg and "--sandbox unsafe-process" in msg
    with pytest.raises(SandboxError, match=r"^--sandbox namespaces: not here$"):
        await Sandbox("namespaces").start()


async def test_auto_takes_the_first_strong_mode_that_works():
    if mode_unavailable("auto"):
        pytest.skip(mode_unavailable("auto"))
    async with Sandbox() as sb:
        assert sb.requested == "auto" and sb.kind in STRONG
        iso = (await sb.run("pass")).isolation
        assert iso["kind"] == sb.kind and iso["requested"] == "auto"
        assert iso["pid_namespace"] and iso["network_namespace"] and iso["private_root"] and iso["read_only_system"]


# ------------------------------------------------------------------------------------------ behaviour

@ROOT_ONLY
@pytest.mark.parametrize("kind", MODES)
async def test_persistent_fork_bomb_with_processes_allowed_leaves_nothing_behind(kind):
    need(kind)
    code = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    before = set(sandbox_processes(os.getpid()))
    async with Sandbox(kind, audit_hook=False) as sb:
        res = await sb.run(code, Limits(wall_seconds=1.5, cpu_seconds=1, max_processes=6))
        assert res.exit_reason in ("timeout", "cpu")
        # the work continues in the same slot
        ok = await sb.run("print(1 + 1)")
        assert ok.exit_reason == "ok" and ok.stdout == "2\n"
    assert not _still_running(before)


async def test_preloaded_names_and_answer_fallback():
    code = ('d = datetime(2025, 7, 1) + timedelta(days=3)\n'
            'r = search_calendar(calendar="gregorian", year=d.year, month=d.month, day=d.day)\n'
            'print(r["hebrew_date"], date(2025, 1, 1).isoformat())\n')
    async with Sandbox() as sb:
        res = await sb.run(code)
        assert res.ok and res.stdout == "5785-4-8 2025-01-01\n" and res.returncode == 0
        assert res.cpu_seconds is not None and res.cpu_seconds < 5
        # Appendix F's style: the result left in `answer`, nothing printed
        res = await sb.run('answer = search_calendar("lunar", 2025, festival_name="Mid-Autumn Festival")'
                           '["gregorian_date"]')
        assert res.ok and res.stdout == "answer = '2025-10-6'\n"
        res = await sb.run("import json, math, calendar\nprint(json.dumps([math.floor(2.5), calendar.isleap(2024)]))")
        assert res.ok and res.stdout == "[2, true]\n"
        res = await sb.run("import numpy")
        assert res.exit_reason == "error" and "not available" in res.stderr


async def test_errors_show_the_snippets_own_traceback():
    async with Sandbox() as sb:
        res = await sb.run("x = 1\nsearch_calendar('gregorian', 2025, 2, 30)\n")
        assert res.exit_reason == "error" and res.returncode == 1
        assert 'File "<snippet>", line 2' in res.stderr and "CalendarError" in res.stderr
        assert "_child.py" not in res.stderr
        res = await sb.run("def f(:\n")
        assert res.exit_reason == "error" and "SyntaxError" in res.stderr


@pytest.mark.parametrize("kind", MODES)
async def test_no_state_survives_between_snippets(kind):
    need(kind)
    async with Sandbox(kind) as sb:
        first = await sb.run("import datetime as m\nm.SENTINEL = 42\nopen('f.txt', 'w').write('kept?')\nprint('set')")
        assert first.ok, first.stderr
        second = await sb.run("import os, datetime as m\nprint(hasattr(m, 'SENTINEL'), os.path.exists('f.txt'))")
        assert second.ok and second.stdout == "False False\n"


async def test_output_cap_counts_stdout_and_stderr_together():
    lim = Limits(max_output_bytes=1000)
    async with Sandbox(limits=lim) as sb:
        res = await sb.run("import sys\nfor i in range(100):\n"
                           "    print('o' * 10)\n    print('e' * 10, file=sys.stderr)\n")
        assert res.exit_reason == "output_limit" and res.truncated
        assert len(res.stdout) + len(res.stderr) == 1000
        small = await sb.run("print('ok')")
        assert small.ok and not small.truncated


@pytest.mark.parametrize("kind", MODES)
async def test_output_printed_before_a_timeout_is_kept(kind):
    need(kind)
    async with Sandbox(kind) as sb:
        res = await sb.run("print('partial')\nwhile True:\n    pass\n", Limits(wall_seconds=1, cpu_seconds=5))
        assert res.exit_reason == "timeout" and res.stdout == "partial\n"
        assert 0.9 < res.seconds < 5
        assert (await sb.run("print('next')")).stdout == "next\n"  # the slot's zygote lives on


async def test_concurrent_slots_run_in_parallel():
    async with Sandbox(concurrency=2) as sb:
        t0 = time.monotonic()
        a, b = await asyncio.gather(sb.run("import time\ntime.sleep(1)\nprint('a')"),
                                    sb.run("import time\ntime.sleep(1)\nprint('b')"))
        assert (a.stdout, b.stdout) == ("a\n", "b\n")
        assert time.monotonic() - t0 < 1.9


@pytest.mark.parametrize("kind", MODES)
async def test_a_killed_zygote_is_replaced(kind):
    need(kind)
    async with Sandbox(kind) as sb:
        assert (await sb.run("print(1)")).ok
        os.kill(sb._zygotes[0].proc.pid, signal.SIGKILL)  # under bwrap: bwrap, and its namespace with it
        await sb._zygotes[0].proc.wait()
        res = await sb.run("print(2)")  # at once: the dead zygote is noticed and replaced
        assert res.ok and res.stdout == "2\n"


async def test_one_off_run_code(secret_env):
    res = await run_code("import os\nprint(sorted(os.environ))")
    assert res.ok and "OPENAI_API_KEY" not in res.stdout and "HOME" in res.stdout


def test_isolation_reported():
    async def go(kind):
        async with Sandbox(kind) as sb:
            return (await sb.run("pass")).isolation

    for kind in MODES:
        if mode_unavailable(kind):
            continue
        iso = asyncio.run(go(kind))
        assert iso["kind"] == kind and iso["warm"] and iso["audit_hook"]
        if os.geteuid() == 0:
            assert iso["uid_drop"] and iso["network_namespace"] and iso["read_only_system"]
        assert iso["pid_namespace"] == iso["private_root"] == (kind in STRONG)


def test_bad_settings_get_clear_errors():
    with pytest.raises(SandboxError, match="wall_seconds must be a positive number"):
        Limits(wall_seconds=0)
    with pytest.raises(SandboxError, match="at least 64 MiB"):
        Limits(memory_bytes=2**20)
    with pytest.raises(SandboxError, match="valid: auto, bwrap, namespaces, unsafe-process"):
        Sandbox("docker")
    with pytest.raises(SandboxError, match="concurrency must be an integer from 1 to 64"):
        Sandbox(concurrency=0)


async def test_too_long_code_is_not_run():
    async with Sandbox() as sb:
        res = await sb.run("#" * 200_000)
        assert res.exit_reason == "error" and "longer than" in res.stderr


@pytest.mark.parametrize("kw,reason", [
    (dict(returncode=0, sig=None), "ok"),
    (dict(returncode=3, sig=None), "error"),
    (dict(returncode=1, sig=None, stderr="Traceback...\nMemoryError\n"), "memory"),
    (dict(returncode=None, sig=signal.SIGXCPU), "cpu"),
    (dict(returncode=None, sig=signal.SIGKILL, cpu=0.9), "cpu"),
    (dict(returncode=None, sig=signal.SIGKILL, cpu=0.1), "killed"),
    (dict(returncode=None, sig=signal.SIGKILL, killed_for="timeout"), "timeout"),
    (dict(returncode=120, sig=None, stderr="sandbox set-up failed: x", setup_error="x"), "sandbox_error"),
    # what a program prints and its exit status cannot make its failure the sandbox's (issue 33)
    (dict(returncode=125, sig=None, stderr="sandbox set-up failed: x"), "error"),
])
def test_classify(kw, reason):
    args = dict(returncode=None, sig=None, killed_for=None, cpu=None, stderr="", limits=Limits(cpu_seconds=1))
    args.update(kw)
    assert classify(**args) == reason
    assert reason in EXIT_REASONS


def test_exec_result_as_dict_is_json_ready():
    r = ExecResult("out", "", "ok", 0, 0.01)
    assert json.loads(json.dumps(r.as_dict()))["exit_reason"] == "ok"


@pytest.mark.parametrize("kind", MODES)
async def test_a_cancelled_run_leaves_nothing_and_the_slot_works_again(kind):
    need(kind)
    before = set(sandbox_processes(os.getpid()))
    async with Sandbox(kind) as sb:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(sb.run("while True:\n    pass\n", Limits(wall_seconds=30, cpu_seconds=30)), 0.5)
        res = await sb.run("print('next')")
        assert res.ok and res.stdout == "next\n"
    await asyncio.sleep(0.2)
    assert not _still_running(before)
    assert not sandbox_folders(os.getpid())


async def test_without_a_dedicated_uid_the_other_layers_still_hold(monkeypatch):
    """No slot uid (not root, or the uids are not mapped here): limits, hook and clean-up still work."""
    import span_toolkit.client.sandbox.pool as runner

    monkeypatch.setattr(runner, "slot_uids", lambda n: None)
    async with Sandbox("unsafe-process") as sb:
        assert sb.isolation["uid_drop"] is False
        res = await sb.run("import os\nprint(os.getuid() == 0)\nopen('x', 'w').write('in the work dir')")
        assert res.ok, res.stderr
        assert (await sb.run("import os\nos.fork()")).exit_reason == "error"
        assert (await sb.run("print('x' * 10**6)", Limits(max_output_bytes=100))).exit_reason == "output_limit"
        root = sb._root
    assert not Path(root).exists()


AS_USER = r"""
import asyncio, json, sys
from span_toolkit.client.sandbox import Sandbox, Limits
from tests.fakes.cheats import Bait, programs

async def main():
    out = {}
    async with Sandbox("auto", audit_hook=False, limits=Limits(wall_seconds=5, cpu_seconds=2)) as sb:
        out["kind"], out["isolation"] = sb.kind, sb.isolation
        status = "open('/proc/self/status').read().split('CapEff:')[1].split()[0]"
        out["who"] = (await sb.run(f"import os\nprint(os.getuid(), {status})")).stdout
        out["fork_bomb"] = (await sb.run("import os\nwhile True:\n    os.fork()\n")).stderr.strip().splitlines()[-1:]
        with Bait() as bait:
            texts = [(await sb.run(code)).stdout for code in programs(bait).values()]
            out["leaks"] = [t for t in texts if bait.secret in t or bait.gold_marker in t]
            out["connections"] = bait.connections()
    print(json.dumps(out))

asyncio.run(main())
"""


@ROOT_ONLY
def test_bwrap_as_a_normal_user(tmp_path):
    """The column 'bwrap, client not root' for real: the client runs as uid 65534. Its own mount namespace
    re-exposes the Python installation when a folder above it is closed to others (here /root, 0700)."""
    import shutil
    import subprocess
    import sys

    need("bwrap")
    if not (shutil.which("unshare") and shutil.which("setpriv")):
        pytest.skip("needs unshare and setpriv (util-linux)")
    root = Path(__file__).resolve().parent.parent
    from tests.fakes.helpers import reexpose_for_another_user

    setup = reexpose_for_another_user([sys.base_prefix, sys.prefix, root], tmp_path)
    script = "set -e\n" + "\n".join(setup) + (
        f"\ncd /tmp\nexec setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin HOME=/tmp "
        f"PYTHONPATH={root} {sys.executable} -c \"$0\"")
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, AS_USER],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["kind"] == "bwrap" and out["isolation"]["pid_namespace"] and out["isolation"]["private_root"]
    assert out["isolation"]["uid_drop"] is False
    assert out["who"] == "0 0000000000000000\n"  # uid 0 of its user namespace, without any capability
    assert out["fork_bomb"] == ["BlockingIOError: [Errno 11] Resource temporarily unavailable"]
    assert out["leaks"] == [] and out["connections"] == 0


@pytest.mark.parametrize("kind", MODES)
async def test_a_program_cannot_fake_a_sandbox_error(kind, monkeypatch):
    """A program that prints the sandbox's set-up message and exits 125 (or writes to fd 3, where the
    set-up channel was) is recorded as its own error; a real set-up failure is still sandbox_error."""
    need(kind)
    fake = ("import os, sys\nfor fd in range(3, 20):\n    try:\n        os.write(fd, b'Fnot me')\n"
            "    except OSError:\n        pass\nsys.stderr.write('sandbox set-up failed: x\\n')\nos._exit(125)\n")
    async with Sandbox(kind, limits=FAST) as sb:
        r = await sb.run(fake)
        assert r.exit_reason == "error" and r.returncode == 125, (r.exit_reason, r.stderr)
        from span_toolkit.client.sandbox import zygote

        real = zygote.request
        monkeypatch.setattr(zygote, "request", lambda *a: {**real(*a), "workdir": "/no/such/folder"})
        r = await sb.run("print('never')")
        assert r.exit_reason == "sandbox_error" and "never" not in r.stdout, (r.exit_reason, r.stderr)
