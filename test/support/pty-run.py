#!/usr/bin/env python3
"""Runs one command in a real pseudo-terminal and drives it like a person at that terminal would.

Used by test/cli/pty.test.ts (python3 is on every machine the tests run on; no native npm module needed). Reads a
JSON spec on stdin:

  {"argv": [...], "env": {...}, "cwd": "...",
   "size": [rows, cols] or null (null: the size of a fresh pty, never set: 0 rows, 0 columns),
   "timeout": seconds until the command is SIGKILLed (a regression then fails instead of hanging),
   "steps": [...]}

Steps, in order (each is an object with one of these keys):
  {"wait": "<regex>", "timeout": s}   until the output so far (escape codes removed) matches; on timeout the
                                      remaining steps are skipped and "failedStep" names this one. With
                                      "squash": true, all white space is removed first (a 1-column terminal
                                      puts every character on a line of its own)
  {"waitPath": "<glob>", "timeout": s}   until a file matching the pattern exists (a timeout fails as above)
  {"sleep": s}
  {"send": "text", "interval": s}     typed one character at a time, `interval` seconds apart
  {"resize": [rows, cols]}            TIOCSWINSZ on the terminal (the kernel sends SIGWINCH on a change)
  {"signal": "TERM"}                  sent to the command's process
  {"close": true}                     the terminal closes (its master side): the command gets SIGHUP and EOF/EIO

Prints one JSON object: status (exit code or null), signal (name or null), timedOut (SIGKILLed at the timeout),
failedStep, bytes (all output), output (the first and last 64 KiB, decoded), events ([ms since start, what,
bytes of output read by then]), pid. The command's pid also goes to stderr as soon as it is known ("pid N"), for the caller's clean-up.
"""
import fcntl
import glob
import json
import os
import re
import select
import signal
import struct
import sys
import termios
import time

KEEP = 64 * 1024
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]")


def set_size(fd, size):
    rows, cols = size
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def main():
    spec = json.load(sys.stdin)
    start = time.monotonic()
    deadline = start + float(spec.get("timeout", 15))
    events = []
    total = 0  # bytes of output so far

    def now_ms():
        return round((time.monotonic() - start) * 1000)

    def event(what):
        events.append([now_ms(), what, total])

    master, slave = os.openpty()
    if spec.get("size") is not None:
        set_size(slave, spec["size"])
    env = dict(spec.get("env") or os.environ)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(master)
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            if slave > 2:
                os.close(slave)
            if spec.get("cwd"):
                os.chdir(spec["cwd"])
            os.execvpe(spec["argv"][0], spec["argv"], env)
        except BaseException as error:
            # Whatever went wrong, the forked child must not go on running the driver's code.
            os.write(2, f"pty-run: cannot start: {error}\n".encode())
        os._exit(127)
    os.close(slave)
    sys.stderr.write(f"pid {pid}\n")
    sys.stderr.flush()

    head = bytearray()
    tail = bytearray()
    text = ""  # the output with escape codes removed, for "wait" (of more than 2 * KEEP bytes, the head and tail)
    master_open = True
    status = None

    def pump(seconds):
        """Reads output for `seconds` at most (0: what is there now), never past the deadline. Returns whether the
        command still runs."""
        nonlocal total, text, master_open, status, tail
        until = min(time.monotonic() + seconds, deadline)
        while True:
            if status is None:
                done, code = os.waitpid(pid, os.WNOHANG)
                if done:
                    status = code
                    event("exit")
            if status is not None and not master_open:
                return False
            if master_open:
                ready, _, _ = select.select([master], [], [], max(0.0, min(until - time.monotonic(), 0.02)))
                if ready:
                    try:
                        chunk = os.read(master, 65536)
                    except OSError:
                        chunk = b""
                    if not chunk:
                        # EIO: every copy of the terminal's other side is closed (the command and its children exited).
                        os.close(master)
                        master_open = False
                    else:
                        total += len(chunk)
                        if len(head) < KEEP:
                            head.extend(chunk[: KEEP - len(head)])
                        tail.extend(chunk)
                        if len(tail) > KEEP:
                            tail = tail[-KEEP:]
                        text = ANSI.sub("", (head + (b"" if total <= KEEP else tail)).decode("utf-8", "replace"))
            else:
                time.sleep(0.01)
            if time.monotonic() >= until:
                return status is None

    def seen(step):
        """Whether what a "wait" or "waitPath" step waits for is there."""
        if "waitPath" in step:
            return bool(glob.glob(step["waitPath"]))
        haystack = re.sub(r"\s+", "", text) if step.get("squash") else text
        return re.search(step["wait"], haystack, re.S) is not None

    failed = None
    for index, step in enumerate(spec.get("steps", [])):
        if time.monotonic() >= deadline:
            failed = index
            break
        if "wait" in step or "waitPath" in step:
            what = step.get("wait", step.get("waitPath"))
            limit = min(time.monotonic() + float(step.get("timeout", 5)), deadline)
            while not seen(step) and time.monotonic() < limit and pump(0.02):
                pass
            if not seen(step):
                event(f"wait failed: {what}")
                failed = index
                break
            event(f"saw {what}")
        elif "sleep" in step:
            pump(float(step["sleep"]))
        elif "send" in step:
            for char in step["send"]:
                if master_open:
                    try:
                        os.write(master, char.encode())
                    except OSError:
                        pass
                event(f"sent {char!r}")
                pump(float(step.get("interval", 0)))
        elif "resize" in step:
            if master_open:
                set_size(master, step["resize"])
            event(f"resized {step['resize'][0]}x{step['resize'][1]}")
        elif "signal" in step:
            try:
                os.kill(pid, getattr(signal, "SIG" + step["signal"]))
            except ProcessLookupError:
                pass
            event(f"SIG{step['signal']}")
        elif "close" in step:
            if master_open:
                os.close(master)
                master_open = False
            event("closed")

    while pump(0.05) and time.monotonic() < deadline:
        pass
    timed_out = False
    if status is None:
        timed_out = True
        event("timeout: SIGKILL")
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if master_open:
        os.close(master)

    whole = bytes(head) if total <= KEEP else bytes(head) + b"\n[...]\n" + bytes(tail)
    json.dump(
        {
            "pid": pid,
            "status": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else None,
            "timedOut": timed_out,
            "failedStep": failed,
            "bytes": total,
            "output": whole.decode("utf-8", "replace"),
            "events": events,
        },
        sys.stdout,
    )


main()
