#!/usr/bin/env python3
"""Keeps a read connection open on each database, as the installed ticker keeps one on the planner's: the
last connection to close is then never the measured program's, so it neither checkpoints nor deletes the
WAL. Writes its process id to READY_FILE once every connection has read its database (the bench kills it
by that id), then sleeps until killed.

    hold_connection.py READY_FILE DB [DB…]
"""
import os
import sqlite3
import sys
import time

connections = []
for path in sys.argv[2:]:
    c = sqlite3.connect(path)
    c.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    connections.append(c)
with open(sys.argv[1] + ".tmp", "w") as ready:
    ready.write(str(os.getpid()))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])  # whole, so a reader never sees it empty
while True:
    time.sleep(3600)
