#!/usr/bin/env python3
"""Runs a program on a new pseudo-terminal, as a person at a terminal would (for scripts/setup-check):
answers its password prompts, types each --send line once the one before has finished, then `exit`.
Exits with the program's status; its output goes to stderr with --show.

    pty-session.py [--password PW] [--send LINE]... [--show] -- PROGRAM [ARG...]
"""
import argparse, os, pty, select, sys, time

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--password")
    p.add_argument("--send", action="append", default=[])
    p.add_argument("--show", action="store_true")
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("program", nargs=argparse.REMAINDER)
    a = p.parse_args()
    argv = a.program[1:] if a.program[:1] == ["--"] else a.program
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    # Each line ends by printing a marker the typed text does not contain (its quotes split it).
    todo = [f'{line}; echo "__sent"_{i}__' for i, line in enumerate(a.send)] + (["exit"] if a.send else [])
    seen, answered, waiting_for, sent = b"", 0, None, 0
    deadline = time.monotonic() + a.timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if a.show:
                sys.stderr.buffer.write(chunk); sys.stderr.flush()
        if a.password and seen.count(b"assword:") > answered:
            answered += 1
            time.sleep(0.2)
            os.write(fd, a.password.encode() + b"\n")
            continue
        if waiting_for is not None and waiting_for in seen:
            waiting_for = None
        # The first line once a prompt shows ("$ " or "# "); each next after the last one's marker.
        if todo and waiting_for is None and (seen.rstrip().endswith((b"$", b"#")) or b"__sent_" in seen):
            line = todo.pop(0)
            if line != "exit":
                waiting_for = f"__sent_{sent}__".encode()
                sent += 1
            time.sleep(0.1)
            os.write(fd, line.encode() + b"\n")
    else:
        os.kill(pid, 9)
        print("pty-session: timed out", file=sys.stderr)
        sys.exit(124)
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))

main()
