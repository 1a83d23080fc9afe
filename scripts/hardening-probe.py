#!/usr/bin/env python3
"""Tries what each hardening line of planner-tick.service forbids and prints `NAME allowed|denied`.

scripts/systemd-check runs it once as a plain process and once as the ticker's delivery program
(`tick --exec`), which inherits everything the unit applies: a line is proven only when the plain run is
`allowed` and the run under the unit is `denied`.

    hardening-probe.py OUTPUT_FILE
"""
import ctypes
import ctypes.util
import mmap
import os
import socket
import sys
import tempfile

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def attempt(action):
    try:
        return "allowed" if action() is not False else "denied"
    except OSError:
        return "denied"


def inet_socket():
    socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()  # RestrictAddressFamilies=AF_UNIX


def unix_socket():
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()  # must stay allowed: the session bus


def write_execute_mapping():
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC).close()  # MemoryDenyWriteExecute


def user_namespace():
    # RestrictNamespaces: unshare(CLONE_NEWUSER) in a child, so the probe itself is not moved.
    pid = os.fork()
    if pid == 0:
        os._exit(0 if libc.unshare(0x10000000) == 0 else 1)
    return os.waitpid(pid, 0)[1] == 0


def change_personality():
    # LockPersonality: READ_IMPLIES_EXEC is a change of execution domain.
    current = libc.personality(0xFFFFFFFF)
    if libc.personality(current | 0x0400000) == -1:
        return False
    libc.personality(current)


def setuid_bit():
    # RestrictSUIDSGID: a user may set the bit on their own file unless forbidden.
    with tempfile.NamedTemporaryFile(dir=os.environ.get("HOME", "/tmp")) as f:
        os.chmod(f.name, 0o4700)


def read_clock_adjustment():
    # SystemCallFilter=@system-service leaves out @clock: adjtimex, even only to read, is refused (in a
    # child: without SystemCallErrorNumber= the call would kill the caller).
    pid = os.fork()
    if pid == 0:
        buffer = ctypes.create_string_buffer(512)
        os._exit(0 if libc.adjtimex(buffer) != -1 else 1)
    return os.waitpid(pid, 0)[1] == 0


def no_new_privileges():
    with open("/proc/self/status") as f:
        return "NoNewPrivs:\t0" in f.read()  # "allowed" = privileges may still be gained


def umask_open():
    old = os.umask(0)
    os.umask(old)
    return old & 0o077 != 0o077  # "allowed" = others may read what it creates


checks = {
    "RestrictAddressFamilies=AF_UNIX(inet)": inet_socket,
    "AF_UNIX-still-works": unix_socket,
    "MemoryDenyWriteExecute": write_execute_mapping,
    "RestrictNamespaces": user_namespace,
    "LockPersonality": change_personality,
    "RestrictSUIDSGID": setuid_bit,
    "SystemCallFilter=@system-service(adjtimex)": read_clock_adjustment,
    "NoNewPrivileges": no_new_privileges,
    "UMask=0077": umask_open,
}
lines = "".join(f"{name} {attempt(check)}\n" for name, check in checks.items())
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(lines)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
