"""inotify through ctypes (no package needed): timestamps of files appearing in a synced folder.

Syncthing writes a received file to `.syncthing.NAME.tmp` and renames it over NAME, so a folder watch
sees IN_MOVED_TO for NAME; a local writer (the planner appending) shows as IN_CLOSE_WRITE / IN_MODIFY.
"""
import ctypes
import os
import select
import struct
import time

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_NONBLOCK, IN_CLOEXEC = 0o4000, 0o2000000
NAMES = {IN_MODIFY: "MODIFY", IN_ATTRIB: "ATTRIB", IN_CLOSE_WRITE: "CLOSE_WRITE", IN_MOVED_FROM: "MOVED_FROM",
         IN_MOVED_TO: "MOVED_TO", IN_CREATE: "CREATE", IN_DELETE: "DELETE"}
HEADER = struct.Struct("iIII")

_libc = ctypes.CDLL(None, use_errno=True)


class Inotify:
    def __init__(self):
        self.fd = _libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.paths = {}

    def watch(self, path, mask):
        wd = _libc.inotify_add_watch(self.fd, os.fsencode(path), mask)
        if wd < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {path}")
        self.paths[wd] = path
        return wd

    def read(self, timeout):
        """Events that arrive within `timeout` seconds: [(monotonic time read, mask, name, watched path)]."""
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not ready:
            return []
        now = time.monotonic()
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return []
        events, offset = [], 0
        while offset < len(data):
            wd, mask, _cookie, length = HEADER.unpack_from(data, offset)
            raw = data[offset + HEADER.size: offset + HEADER.size + length]
            events.append((now, mask, raw.rstrip(b"\0").decode(errors="replace"), self.paths.get(wd)))
            offset += HEADER.size + length
        return events

    def close(self):
        os.close(self.fd)


def describe(mask):
    return "|".join(name for bit, name in NAMES.items() if mask & bit) or hex(mask)
