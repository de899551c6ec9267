"""The client's side of one warm zygote: start it (directly, or inside bubblewrap), run snippets through it.

Protocol over a Unix socketpair (the zygote's fd ``ctl_fd``): the client sends an 8-byte length with three
fds attached (SCM_RIGHTS: the write ends of the snippet's stdout/stderr pipes, the read end of its kill
pipe), then the JSON request; the zygote answers one JSON line with the child's pid after the fork, and one
with its exit status and CPU time after ``wait4``. A byte written to the kill pipe (or the pipe closed)
makes the zygote SIGKILL the snippet: in the strong modes the pid it reports is one of the sandbox's own
pid namespace, so the client never kills by that number. One snippet at a time per zygote; the pool in
pool.py keeps one zygote per slot.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import struct
import sys
import tempfile
import time
from contextlib import suppress

from . import bwrap as _bwrap
from .limits import STRONG_KINDS, ExecResult, Limits, SandboxError
from .procs import (CHILD_SCRIPT, CLEAN_ENV, GRACE, INTERP_FLAGS, KILL_TIMEOUT, STARTUP_TIMEOUT, Output, classify,
                    kill_group, request, sweep_uid)
from .rootfs import RootPlan


class ZygoteGone(RuntimeError):
    """The zygote died before it forked the snippet (nothing of the snippet ran)."""


class Zygote:
    def __init__(self, kind: str, plan: RootPlan, uid: int | None, probe_dir: str | None = None) -> None:
        self.kind, self.plan, self.uid, self.probe_dir = kind, plan, uid, probe_dir
        self.proc: asyncio.subprocess.Process | None = None
        self.sock: socket.socket | None = None
        self.errlog = None
        self._buf = b""
        self.private_fs = False
        self.seccomp = True  # False only for tests of the other layers (Sandbox(seccomp=False))

    def argv(self, cfg: dict) -> list[str]:
        cmd = [sys.executable, *INTERP_FLAGS, CHILD_SCRIPT, "zygote", json.dumps(cfg)]
        if self.kind == "bwrap":
            # root with a slot uid to drop to: no user namespace (see bwrap_argv); otherwise one
            return _bwrap.bwrap_argv(self.plan, as_root=os.geteuid() == 0 and self.uid is not None) + cmd
        return cmd

    async def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        cfg = {"ctl_fd": theirs.fileno(), "mode": self.kind, "python_paths": list(self.plan.python_paths),
               "uid": self.uid, "probe_dir": self.probe_dir, "client": os.getpid(),
               "root": self.plan.as_dict(mountpoint="/tmp") if self.kind in STRONG_KINDS else None}
        try:
            self.errlog = tempfile.TemporaryFile(prefix="span-zygote-")  # noqa: SIM115 - unlinked at once
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv(cfg), stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=self.errlog, env=dict(CLEAN_ENV), cwd="/", pass_fds=(theirs.fileno(),),
                start_new_session=True)
        except OSError as e:
            ours.close()
            raise SandboxError(f"cannot start the sandbox ({e.strerror or e})") from None
        finally:
            theirs.close()
        ours.setblocking(False)
        self.sock = ours
        try:
            hello = json.loads(await asyncio.wait_for(self._line(), STARTUP_TIMEOUT))
        except (asyncio.TimeoutError, EOFError, ValueError) as e:
            await self.close()
            raise SandboxError(f"the sandbox did not start: {self._log_tail() or type(e).__name__}") from None
        if "error" in hello:
            await self.close()
            raise SandboxError(f"the sandbox could not set itself up: {hello['error']}")
        self.private_fs = bool(hello.get("private_fs"))

    def _log_tail(self) -> str:
        if self.errlog is None:
            return ""
        try:
            self.errlog.seek(0)
            text = self.errlog.read()[-2000:].decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return text.splitlines()[-1] if text else ""

    async def _line(self) -> str:
        loop = asyncio.get_running_loop()
        while b"\n" not in self._buf:
            chunk = await loop.sock_recv(self.sock, 4096)
            if not chunk:
                raise EOFError("zygote closed its control socket")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode()

    @property
    def alive(self) -> bool:
        if self.proc is None or self.proc.returncode is not None or self.sock is None:
            return False
        try:  # a zygote that died (under bwrap: with its namespace) has closed its end already
            return self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
        except BlockingIOError:
            return True
        except OSError:
            return False

    async def run(self, code: str, limits: Limits, workdir: str, audit_hook: bool) -> ExecResult:
        loop = asyncio.get_running_loop()
        t0 = time.perf_counter()
        deadline = t0 + limits.wall_seconds
        r_out, w_out = os.pipe()
        r_err, w_err = os.pipe()
        r_kill, w_kill = os.pipe()
        os.set_blocking(w_kill, False)
        payload = json.dumps(request(code, limits, workdir, self.uid, audit_hook, self.private_fs, self.seccomp)).encode()
        host_pid: int | None = None  # a pid the client may signal itself (unsafe-process only)
        started = False
        killed_for: list[str] = []

        def kill(reason: str) -> None:
            if not killed_for:
                killed_for.append(reason)
            with suppress(OSError):
                os.write(w_kill, b"k")
            kill_group(host_pid)

        output = Output((r_out, r_err), limits.max_output_bytes, lambda: kill("output_limit"))
        exit_info: dict | None = None
        try:
            try:
                socket.send_fds(self.sock, [struct.pack("!Q", len(payload))], [w_out, w_err, r_kill])
                await loop.sock_sendall(self.sock, payload)
            finally:  # the zygote holds its own copies now (or never will)
                for fd in (w_out, w_err, r_kill):
                    os.close(fd)
            forked = json.loads(await asyncio.wait_for(self._line(), STARTUP_TIMEOUT))
            if forked.get("pid") is None:
                output.close()
                return ExecResult("", f"sandbox error: {forked.get('error')}", "sandbox_error", None,
                                  time.perf_counter() - t0, kind=self.kind)
            started = True
            if self.kind not in STRONG_KINDS:
                host_pid = forked["pid"]
            if output.truncated:
                kill("output_limit")
            exit_task = asyncio.ensure_future(self._line())
            try:
                done, _ = await asyncio.wait({exit_task}, timeout=max(0.0, deadline - time.perf_counter()))
                if not done:
                    kill("timeout")
                exit_info = json.loads(await asyncio.wait_for(exit_task, KILL_TIMEOUT))
            finally:
                if not exit_task.done():
                    exit_task.cancel()
            with suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(output.done), GRACE)
        except (EOFError, OSError, asyncio.TimeoutError, ValueError, KeyError) as e:
            kill_group(host_pid)
            self.abandon()
            output.close()
            if not started:  # the snippet never started: the caller may start a new zygote and retry
                raise ZygoteGone(f"{type(e).__name__}: {e}") from None
            out, err = output.text()
            reason = killed_for[0] if killed_for else "sandbox_error"
            return ExecResult(out, (err + f"\nsandbox error: {type(e).__name__}: {e}").strip(), reason, None,
                              time.perf_counter() - t0, output.truncated, None, self.kind)
        except BaseException:
            # Cancelled mid-run: the exit report still to come would be read as the next run's, so this
            # zygote is given up (and replaced on the next run) along with its snippet.
            kill_group(host_pid)
            self.abandon()
            raise
        finally:
            output.close()
            os.close(w_kill)  # a zygote still waiting takes this as "kill it"
        if self.uid is not None and limits.max_processes > 1:
            sweep_uid(self.uid)
        elif limits.max_processes > 1:
            kill_group(host_pid)  # whatever it started and left in its session
        out, err = output.text()
        sig, rc = exit_info.get("signal"), exit_info.get("returncode")
        setup_error = exit_info.get("setup_error")
        reason = classify(returncode=rc, sig=sig, killed_for=killed_for[0] if killed_for else None,
                          cpu=exit_info.get("cpu"), stderr=err, limits=limits, setup_error=setup_error)
        if reason == "sandbox_error" and "sandbox set-up failed" not in err:
            err = (err + f"\nsandbox set-up failed: {setup_error}").strip()
        return ExecResult(out, err, reason, -sig if sig else rc, time.perf_counter() - t0, output.truncated,
                          exit_info.get("cpu"), self.kind)

    def abandon(self) -> None:
        """Kill the zygote now, without waiting (it is restarted on the slot's next run). Under bwrap this
        kills bwrap, whose pid namespace, and every snippet in it, dies with it."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.proc is not None and self.proc.returncode is None:
            kill_group(self.proc.pid)

    async def close(self) -> None:
        self.abandon()
        if self.proc is not None and self.proc.returncode is None:
            kill_group(self.proc.pid)
            with suppress(Exception):
                await asyncio.wait_for(self.proc.wait(), 5)
        if self.errlog is not None:
            self.errlog.close()
            self.errlog = None
