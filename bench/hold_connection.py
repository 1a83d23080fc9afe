#!/usr/bin/env python3
"""Keeps a read connection open on each database, as the installed ticker keeps one on the planner's: the
last connection to close is then never the measured program's, so it neither checkpoints nor deletes the
WAL. Creates READY_FILE once every connection has read its database, then sleeps until killed.

    hold_connection.py READY_FILE DB [DB…]
"""
import sqlite3
import sys
import time

connections = []
for path in sys.argv[2:]:
    c = sqlite3.connect(path)
    c.execute("SELECT count(*) FROM sqlite_schema").fetchone()
    connections.append(c)
open(sys.argv[1], "w").close()
while True:
    time.sleep(3600)
