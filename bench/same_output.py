#!/usr/bin/env python3
"""Two planner binaries, the same 86 commands (every subcommand, good and bad input, setup's dry run,
install and uninstall into a throwaway HOME with a fake crontab), each run in the same folder: stdout,
stderr, exit status, the database's rows and every file left must be the same (issue 20: a restructuring
changes nothing a user sees). Exit 1 when anything differs.

    python3 bench/same_output.py /tmp/planner-old .build/release/planner
"""
import os, shutil, subprocess, sys, tempfile

BEFORE, AFTER = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
ROOT = tempfile.mkdtemp(prefix="planner-same-output-") + "/w"
FAKEBIN = ROOT + "/fakebin"
CRONTAB = ROOT + "/crontab.txt"

def reset():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT + "/home")
    os.makedirs(FAKEBIN)
    # A fake crontab (keeps the table in a file) and no systemctl: setup takes the cron path.
    with open(FAKEBIN + "/crontab", "w") as f:
        f.write(f"""#!/bin/sh
case "$1" in
  -l) [ -f {CRONTAB} ] && cat {CRONTAB} || {{ echo "no crontab for you" >&2; exit 1; }} ;;
  -r) rm -f {CRONTAB} ;;
  -) cat > {CRONTAB} ;;
esac
""")
    os.chmod(FAKEBIN + "/crontab", 0o755)
    with open(FAKEBIN + "/lesson", "w") as f:
        f.write("#!/bin/sh\necho lesson \"$@\"\n")
    os.chmod(FAKEBIN + "/lesson", 0o755)
    with open(FAKEBIN + "/notes", "w") as f:
        f.write("plain\n")
    os.chmod(FAKEBIN + "/notes", 0o755)

def env(extra):
    e = {"HOME": ROOT + "/home", "TZ": "Asia/Seoul", "PATH": FAKEBIN + ":/usr/bin:/bin", "LANG": "C.UTF-8"}
    e.update(extra)
    return {k: v for k, v in e.items() if v is not None}

DB = ROOT + "/p.db"
N = "2026-11-23T12:00"
CASES = [
    # (name, [commands...]) each command: (args, extra env)
    ("refill-verbose", [(["refill", "--db", DB, "--now", "2026-11-23T08:00", "--verbose"], {})]),
    ("open-verbose", [(["refill", "--db", DB, "--now", "2026-11-23T08:00"], {}), (["open", "--db", DB, "--now", "2026-11-23T10:10", "--verbose"], {})]),
    ("open-env", [(["open"], {"PLANNER_DB": DB, "PLANNER_NOW": "2026-11-23T10:10"})]),
    ("open-xdg", [(["open", "--now", N], {"XDG_DATA_HOME": ROOT + "/data"}), (["status", "--now", N], {"XDG_DATA_HOME": ROOT + "/data"})]),
    ("open-home", [(["open", "--now", N], {}), (["list", "--now", N], {})]),
    ("bad-now-env", [(["open", "--db", DB], {"PLANNER_NOW": "yesterday"})]),
    ("bad-tz", [(["status", "--db", DB], {"TZ": "Mars/Base"})]),
    ("bad-grace", [(["refill", "--db", DB, "--grace", "soon"], {})]),
    ("status", [(["refill", "--db", DB, "--now", "2026-11-23T08:00"], {}), (["status", "--db", DB, "--now", N], {}), (["status", "--db", DB, "--now", N, "--json"], {}), (["status", "--db", DB, "--now", N], {"TZ": "Europe/Berlin"})]),
    ("list", [(["refill", "--db", DB, "--now", N], {}), (["list", "--db", DB, "--now", N], {}), (["list", "--db", DB, "--now", N, "--json"], {})]),
    ("add", [(["add", "--db", DB, "--now", N, "--in", "2h", "--title", "Tea"], {}), (["add", "--db", DB, "--now", N, "--at", "2026-11-23T18:00", "--title", "Tea", "--id", "tea"], {}), (["add", "--db", DB, "--now", N, "--at", "2026-11-23T18:00", "--title", "Tea2", "--id", "tea"], {}), (["add", "--db", DB, "--now", N, "--in", "-5m", "--title", "x"], {}), (["add", "--db", DB, "--now", N, "--at", "2026-11-23T10:00", "--title", "x"], {}), (["add", "--db", DB, "--now", N, "--in", "9000d", "--title", "x", "--body", "b"], {})]),
    # (a delivery's lateness is real elapsed time: history shows cancelled slots, whose times are --now's)
    ("history", [(["refill", "--db", DB, "--now", "2026-11-23T08:00"], {}), (["open", "--db", DB, "--now", "2026-11-23T10:10"], {}), (["history", "--db", DB, "--now", N], {}), (["history", "--db", DB, "--now", N, "--json", "--limit", "3"], {})]),
    ("config", [(["config", "--db", DB, "--now", N], {}), (["config", "show", "--json", "--db", DB, "--now", N], {}), (["config", "get", "window", "--db", DB], {}), (["config", "set", "window", "08:00-20:00", "zone", "Europe/Berlin", "--verbose", "--db", DB, "--now", N], {}), (["config", "set", "nope", "1", "--db", DB], {}), (["config", "set", "zone", "Mars/X", "--db", DB], {}), (["config", "set", "window", "--db", DB], {}), (["config", "reset", "window", "--db", DB, "--now", N], {}), (["config", "reset", "--db", DB, "--now", N], {})]),
    ("skip", [(["skip", "2026-11-24..2026-11-26", "--reason", "trip", "--db", DB, "--now", N], {}), (["skip", "--list", "--db", DB], {}), (["skip", "--list", "--json", "--db", DB], {}), (["skip", "--remove", "2026-11-25", "--db", DB, "--now", N], {}), (["skip", "2026-12-02..2026-12-01", "--db", DB], {}), (["skip", "--db", DB], {}), (["skip", "--list", "--remove", "--db", DB], {}), (["skip", "2026-11-24", "--json", "--db", DB], {})]),
    ("pause", [(["pause", "--for", "3d", "--db", DB, "--now", N], {}), (["status", "--db", DB, "--now", N], {}), (["resume", "--db", DB, "--now", N], {}), (["resume", "--db", DB, "--now", N], {}), (["pause", "--until", "2026-12-01", "--db", DB, "--now", N], {}), (["pause", "--until", "2026-11-01", "--db", DB, "--now", N], {}), (["pause", "--until", "whenever", "--db", DB, "--now", N], {}), (["pause", "--for", "0s", "--db", DB, "--now", N], {}), (["pause", "--db", DB, "--now", N], {})]),
    ("plan-export-stats", [(["open", "--db", DB, "--now", N], {}), (["plan", "--db", DB, "--now", N], {}), (["plan", "--json", "--days", "3", "--db", DB, "--now", N], {}), (["export", "--ics", "--days", "2", "--db", DB, "--now", N], {}), (["stats", "--db", DB, "--now", N], {}), (["stats", "--json", "--weeks", "1", "--db", DB, "--now", N], {}), (["stats", "--db", DB, "--now", N], {"NO_COLOR": "1"})]),
    ("study", [(["study", "--db", DB, "--now", N, "--", "lesson", "one"], {}), (["study", "--db", DB, "--now", N, "--", "notes"], {}), (["study", "--db", DB, "--now", N, "--", "missing-program"], {}), (["study", "--db", DB, "--now", N], {}), (["config", "set", "study-command", "lesson two", "--db", DB, "--now", N], {}), (["study", "--db", DB, "--now", N], {}), (["status", "--db", DB, "--now", N], {})]),
    ("tick-once", [(["refill", "--db", DB, "--now", "2026-11-23T08:00"], {}), (["tick", "--once", "--sink", "stdout", "--db", DB, "--now", "2026-11-23T10:00"], {}), (["tick", "--once", "--exec", "lesson", "--db", DB, "--now", "2026-11-23T10:30"], {}), (["tick", "--once", "--sink", "stdout", "--exec", "x", "--db", DB], {}), (["tick", "--now", N, "--db", DB], {})]),
    ("setup", [(["setup", "--db", "rel.db"], {}), (["setup", "--scheduler", "cron", "--db", DB, "--now", N], {}), (["setup", "--install", "--scheduler", "cron", "--db", DB, "--now", N], {}), (["setup", "--scheduler", "cron", "--db", DB, "--now", N], {}), (["setup", "--uninstall", "--db", DB], {}), (["setup", "--uninstall", "--db", DB], {})]),
    ("setup-xdg", [(["setup", "--install", "--scheduler", "cron", "--db", DB, "--now", N], {"XDG_DATA_HOME": ROOT + "/xd", "XDG_CONFIG_HOME": ROOT + "/xc", "XDG_STATE_HOME": ROOT + "/xs"}), (["setup", "--uninstall"], {"XDG_DATA_HOME": ROOT + "/xd", "XDG_CONFIG_HOME": ROOT + "/xc", "XDG_STATE_HOME": ROOT + "/xs"})]),
    ("setup-package", [(["setup", "--package-files", ROOT + "/pkg"], {}), (["setup", "--package-files", "relative"], {})]),
    ("version-help", [(["--version"], {}), (["open", "--help"], {}), (["bogus"], {})]),
]

def tree(path):
    out = []
    for dirpath, dirs, files in os.walk(path):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            if p.startswith(FAKEBIN) or "/.opens" in p:
                continue
            if f.endswith(("-wal", "-shm", ".db")):  # compared as rows by dbstate()
                out.append((p, "(db)"))
                continue
            try:
                out.append((p, open(p, "rb").read()))
            except Exception as e:
                out.append((p, str(e)))
    return out

def dbstate():
    if not os.path.exists(DB):
        return None
    q = "SELECT identifier, kind, fire_at_ms, state FROM request ORDER BY id; SELECT opened_at_ms, origin FROM app_open ORDER BY id; SELECT key, value FROM settings ORDER BY key; SELECT * FROM skipped_dates;"
    return subprocess.run(["sqlite3", DB, q], capture_output=True, text=True).stdout

def run(binary, commands):
    reset()
    results = []
    for args, extra in commands:
        r = subprocess.run([binary] + args, capture_output=True, env=env(extra), cwd=ROOT, timeout=60)
        results.append((args, r.returncode, r.stdout, r.stderr))
    return results, dbstate(), tree(ROOT)

def clean(results, binary):
    return [(a, rc, out.replace(binary.encode(), b"<BIN>"), err.replace(binary.encode(), b"<BIN>")) for a, rc, out, err in results]

bad = 0
total = 0
for name, commands in CASES:
    rb, db_b, tree_b = run(BEFORE, commands)
    ra, db_a, tree_a = run(AFTER, commands)
    rb, ra = clean(rb, BEFORE), clean(ra, AFTER)
    tree_b = [(p, c.replace(BEFORE.encode(), b"<BIN>") if isinstance(c, bytes) else c) for p, c in tree_b]
    tree_a = [(p, c.replace(AFTER.encode(), b"<BIN>") if isinstance(c, bytes) else c) for p, c in tree_a]
    total += len(commands)
    for x, y in zip(rb, ra):
        if x != y:
            bad += 1
            print(f"DIFF {name} {x[0]}:\n  before rc={x[1]} out={x[2][:300]!r} err={x[3][:300]!r}\n  after  rc={y[1]} out={y[2][:300]!r} err={y[3][:300]!r}")
    if db_b != db_a:
        bad += 1
        print(f"DIFF {name}: database differs")
    if tree_b != tree_a:
        bad += 1
        pb = dict(tree_b); pa = dict(tree_a)
        for p in sorted(set(pb) | set(pa)):
            if pb.get(p) != pa.get(p):
                print(f"DIFF {name}: file {p}")
    print(f"{name}: {len(commands)} commands, rc {[r[1] for r in ra]}")
print(f"{total} commands in {len(CASES)} cases; {bad} differences")
shutil.rmtree(os.path.dirname(ROOT), ignore_errors=True)
sys.exit(1 if bad else 0)
