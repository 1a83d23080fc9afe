/* open_c.c: the SQLite work of `planner open --db DB --now TIME`, in plain C, as the baseline of
 * bench/open_bench.sh. It runs the statements of Sources/PlannerStore (PlannerDatabase.init,
 * readPlanState, recordAppOpen, apply, transition) in the same order, with the same pragmas, SQL text
 * and bound parameters, and the decision of Sources/PlannerCore/PlanDecisions.swift (decideOpen +
 * decideRefill + SlotIdentifier.upcoming). It assumes an existing, already migrated planner database
 * in WAL mode (the templates are); error handling is a bare "die".
 *
 * What it checks the database against (the last schema version, the planner's objects and their
 * fingerprint) comes from migrations/ through a generated header, and the states that end a slot from
 * the database's request_state table, as the planner's own do.
 *
 *   usage:  TZ=Asia/Seoul ./open_c DB YYYY-MM-DDTHH:MM[:SS]     (local wall time in TZ)
 *   build:  bench/planner_schema.py migrations > bench/out/planner_schema.h
 *           gcc -O2 -I bench/out -o open_c bench/open_c.c -lsqlite3
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>
#include "planner_schema.h" /* LATEST_VERSION, PLANNER_OBJECTS, SCHEMA_FINGERPRINT */

#define CAP 64
#define GRACE_MS (15 * 60 * 1000LL)
#define DAY_MS 86400000LL
#define APPLICATION_ID 0x504C4E52
#define TITLE "Time to study?"
#define BODY "Start today's lesson: reminders stop for the day once you begin."
#define PREFIX "Noti_AppOpenPromotion_"

typedef struct { long long rowid, fire_ms; char id[64]; int slot; char date[11]; } Pending;
typedef struct { long long fire_ms; char id[64], date[11], local_time[40]; int is_new; Pending *kept; } Entry;

static sqlite3 *db;
static const char *zone_name;

static void die(const char *what) {
    fprintf(stderr, "open_c: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
    exit(1);
}

static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) die(sql);
    return s;
}

static int step(sqlite3_stmt *s) {
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) die("step");
    return rc == SQLITE_ROW;
}

static void exec(const char *sql) {
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) die(sql);
}

/* Connection.integer / Connection.text: prepare, one step, finalize. */
static long long query_int(const char *sql) {
    sqlite3_stmt *s = prepare(sql);
    long long v = step(s) ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    return v;
}

/* Statement.run: reset + clear bindings (as Statement.bind does), bind, step to the end. */
static void rebind(sqlite3_stmt *s) { sqlite3_reset(s); sqlite3_clear_bindings(s); }
static void run(sqlite3_stmt *s) { while (step(s)) {} }

/* Zone.rfc3339: 2026-11-23T09:30:00+09:00; Zone.local(..).date: 2026-11-23. */
static void rfc3339(long long ms, char *out, size_t n) {
    time_t t = (time_t)(ms / 1000);
    struct tm l;
    localtime_r(&t, &l);
    long off = l.tm_gmtoff / 60;
    char frac[8] = "";
    if (ms % 1000) snprintf(frac, sizeof frac, ".%03lld", ms % 1000);
    snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d%s%c%02ld:%02ld", l.tm_year + 1900, l.tm_mon + 1, l.tm_mday,
             l.tm_hour, l.tm_min, l.tm_sec, frac, off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60);
}

static void local_date(long long ms, char *out) {
    time_t t = (time_t)(ms / 1000);
    struct tm l;
    localtime_r(&t, &l);
    snprintf(out, 11, "%04d-%02d-%02d", l.tm_year + 1900, l.tm_mon + 1, l.tm_mday);
}

static int contains(char (*ids)[64], int n, const char *id) {
    for (int i = 0; i < n; i++) if (strcmp(ids[i], id) == 0) return 1;
    return 0;
}

static int by_time_then_id(const void *a, const void *b) {
    const Entry *x = a, *y = b;
    if (x->fire_ms != y->fire_ms) return x->fire_ms < y->fire_ms ? -1 : 1;
    return strcmp(x->id, y->id);
}

int main(int argc, char **argv) {
    if (!getenv("TZ")) { fprintf(stderr, "open_c: set TZ to the zone the database was planned in\n"); return 64; }
    if (argc != 3) { fprintf(stderr, "usage: open_c DB YYYY-MM-DDTHH:MM[:SS]\n"); return 64; }
    const char *path = argv[1];
    umask(077);
    const char *tz = getenv("TZ");
    zone_name = tz && *tz == ':' ? tz + 1 : (tz ? tz : "localtime");
    tzset();

    /* --now: local wall time in TZ. */
    struct tm w = {0};
    if (sscanf(argv[2], "%d-%d-%dT%d:%d:%d", &w.tm_year, &w.tm_mon, &w.tm_mday, &w.tm_hour, &w.tm_min, &w.tm_sec) < 5) {
        fprintf(stderr, "open_c: bad time\n");
        return 64;
    }
    w.tm_year -= 1900; w.tm_mon -= 1; w.tm_isdst = -1;
    long long now = (long long)mktime(&w) * 1000;

    /* DatabaseFile.inspect + PlannerDatabase.checkHeader: stat, read the 100-byte header. */
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) { fprintf(stderr, "open_c: no database\n"); return 74; }
    unsigned char h[100];
    FILE *f = fopen(path, "rb");
    if (!f || fread(h, 1, 100, f) != 100 || memcmp(h, "SQLite format 3", 16) != 0) { fprintf(stderr, "open_c: not SQLite\n"); return 65; }
    fclose(f);
#define BE4(o) ((unsigned)h[o] << 24 | (unsigned)h[o + 1] << 16 | (unsigned)h[o + 2] << 8 | h[o + 3])
    long long page_size = h[16] << 8 | h[17];
    if (page_size == 1) page_size = 65536;
    char wal_path[4200];
    snprintf(wal_path, sizeof wal_path, "%s-wal", path);
    struct stat wst;
    int wal_has_frames = stat(wal_path, &wst) == 0 && wst.st_size > 0;
    if (!wal_has_frames && BE4(92) == BE4(24) && BE4(28) > 0 && page_size * BE4(28) > st.st_size) { fprintf(stderr, "open_c: truncated\n"); return 65; }
    if (BE4(68) != 0 && BE4(68) != APPLICATION_ID) { fprintf(stderr, "open_c: foreign\n"); return 65; }

    /* PlannerDatabase.init: the resolved path, then open with no checkpoint on close while checking. */
    char *resolved = realpath(path, NULL);
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE, NULL) != SQLITE_OK) die("open");
    sqlite3_busy_timeout(db, 10000);
    sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
    /* checkOwnership: one read transaction for the identity and the schema's fingerprint. */
    exec("BEGIN");
    long long app_id = query_int("SELECT (SELECT application_id FROM pragma_application_id)");
    long long user_version = query_int("SELECT (SELECT user_version FROM pragma_user_version)");
    long long objects = query_int("SELECT count(*) FROM sqlite_schema");
    {
        sqlite3_stmt *f = prepare("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema WHERE name IN ("
                                  PLANNER_OBJECTS ") ORDER BY name");
        unsigned long long h = 0xCBF29CE484222325ULL;
        while (step(f))
            for (int c = 0; c < 4; c++) {
                for (const unsigned char *b = sqlite3_column_text(f, c); *b; b++) h = (h ^ *b) * 0x100000001B3ULL;
                h = (h ^ 1) * 0x100000001B3ULL;
            }
        sqlite3_finalize(f);
        if (h != SCHEMA_FINGERPRINT) { fprintf(stderr, "open_c: schema fingerprint differs\n"); return 65; }
    }
    exec("ROLLBACK");
    if (app_id != APPLICATION_ID || user_version > LATEST_VERSION || objects == 0) { fprintf(stderr, "open_c: not a planner database\n"); return 65; }
    sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, (int *)0);
    sqlite3_stmt *s = prepare("PRAGMA journal_mode");
    int wal = step(s) && strcmp((const char *)sqlite3_column_text(s, 0), "wal") == 0;
    sqlite3_finalize(s);
    if (!wal) { s = prepare("PRAGMA journal_mode = WAL"); step(s); sqlite3_finalize(s); }
    exec("PRAGMA synchronous = FULL");
    /* migrate(): the version is read once per known migration. */
    for (int m = 1; m <= LATEST_VERSION; m++)
        if (query_int("PRAGMA user_version") < m) { fprintf(stderr, "open_c: needs a migrated database\n"); return 65; }
    /* makePrivate: the database and its WAL files are checked for loose modes. */
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char file[4200];
        snprintf(file, sizeof file, "%s%s", resolved ? resolved : path, suffixes[i]);
        struct stat fst;
        if (stat(file, &fst) == 0 && fst.st_uid == getuid() && (fst.st_mode & 077)) chmod(file, 0600);
    }
    free(resolved);

    /* recordAppOpen: one IMMEDIATE transaction. */
    exec("BEGIN IMMEDIATE");

    /* readPlan: the settings (the defaults here; the planner parses and checks each). */
    s = prepare("SELECT key, value FROM setting");
    while (step(s)) {
        const char *k = (const char *)sqlite3_column_text(s, 0), *v = (const char *)sqlite3_column_text(s, 1);
        if (strcmp(k, "zone") == 0 ? strcmp(v, getenv("TZ")) != 0
            : strcmp(k, "window") == 0 ? strcmp(v, "09:30-21:30") != 0 : strcmp(k, "interval") == 0 ? strcmp(v, "30m") != 0
            : strcmp(k, "days") == 0 ? strcmp(v, "mon-fri") != 0 : 0) { fprintf(stderr, "open_c: only the default plan is mirrored\n"); return 1; }
    }
    sqlite3_finalize(s);

    /* readPlanState */
    Pending pending[256];
    int npending = 0;
    s = prepare("SELECT id, identifier, kind, fire_at_ms, local_date, zone, title, body FROM request WHERE state = 'pending'");
    while (step(s) && npending < 256) {
        Pending *p = &pending[npending++];
        p->rowid = sqlite3_column_int64(s, 0);
        snprintf(p->id, sizeof p->id, "%s", (const char *)sqlite3_column_text(s, 1));
        p->slot = strcmp((const char *)sqlite3_column_text(s, 2), "slot") == 0;
        p->fire_ms = sqlite3_column_int64(s, 3);
        snprintf(p->date, sizeof p->date, "%s", (const char *)sqlite3_column_text(s, 4));
        /* decideRefill re-plans slots made in another zone; here every slot is the same zone's. */
        if (p->slot && strcmp((const char *)sqlite3_column_text(s, 5), getenv("TZ")) != 0) { fprintf(stderr, "open_c: zone changed\n"); return 1; }
    }
    sqlite3_finalize(s);

    static char skip_ids[4096][64]; /* finished slot identifiers, then the live pending ones */
    int nskip = 0;
    s = prepare("SELECT identifier FROM request\n"
                "WHERE fire_at_ms > ? AND kind = 'slot'\n"
                "  AND state IN (SELECT name FROM request_state WHERE ends_slot)");
    rebind(s);
    sqlite3_bind_int64(s, 1, now - 2 * DAY_MS); /* PlannerDatabase.finishedLookBack: any zone change */
    while (step(s) && nskip < 4000) snprintf(skip_ids[nskip++], 64, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);

    char today[11], yesterday[11], opened[64][64]; /* [64]: same shape as skip_ids for contains() */
    int nopened = 0;
    local_date(now, today);
    {   /* today's date minus one calendar day */
        time_t t = (time_t)(now / 1000);
        struct tm l;
        localtime_r(&t, &l);
        struct tm y = {.tm_year = l.tm_year, .tm_mon = l.tm_mon, .tm_mday = l.tm_mday - 1, .tm_hour = 12, .tm_isdst = -1};
        time_t yt = mktime(&y);
        local_date((long long)yt * 1000, yesterday);
    }
    /* One-offs waiting outside the cap (none in these templates, but the query runs). */
    s = prepare("SELECT id, identifier, kind, fire_at_ms, local_date, zone FROM request\n"
                "WHERE fire_at_ms > ? AND state = 'displaced' AND kind = 'oneoff'");
    rebind(s);
    sqlite3_bind_int64(s, 1, now - DAY_MS);
    while (step(s)) { fprintf(stderr, "open_c: waiting one-offs are not mirrored\n"); return 1; }
    sqlite3_finalize(s);

    s = prepare("SELECT DISTINCT local_date FROM app_open WHERE local_date >= ?");
    rebind(s);
    sqlite3_bind_text(s, 1, yesterday, -1, SQLITE_TRANSIENT);
    while (step(s) && nopened < 63) snprintf(opened[nopened++], 11, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    snprintf(opened[nopened++], 11, "%s", today); /* decideOpen: today's date is skipped too */
    /* Skipped dates and the pause (none in these templates, but the queries run). */
    s = prepare("SELECT local_date FROM skipped_date WHERE local_date >= ? AND removed_at_ms IS NULL");
    rebind(s);
    sqlite3_bind_text(s, 1, yesterday, -1, SQLITE_TRANSIENT);
    while (step(s)) { fprintf(stderr, "open_c: skipped dates are not mirrored\n"); return 1; }
    sqlite3_finalize(s);
    s = prepare("SELECT since_ms, until_ms FROM pause\nWHERE ended_at_ms IS NULL AND (until_ms IS NULL OR until_ms > ?)\nORDER BY since_ms DESC LIMIT 1");
    rebind(s);
    sqlite3_bind_int64(s, 1, now);
    while (step(s)) { fprintf(stderr, "open_c: pauses are not mirrored\n"); return 1; }
    sqlite3_finalize(s);

    /* decideOpen: today's pending slots are cancelled; decideRefill on the rest. */
    Pending *cancelled[256], *missed[256], *displaced[256];
    int ncancelled = 0, nmissed = 0, ndisplaced = 0;
    static Entry entries[CAP + 256];
    int nentries = 0;
    for (int i = 0; i < npending; i++) {
        Pending *p = &pending[i];
        if (p->slot && strcmp(p->date, today) == 0) cancelled[ncancelled++] = p;
        else if (p->fire_ms < now - GRACE_MS) missed[nmissed++] = p;
        else {
            Entry *e = &entries[nentries++];
            *e = (Entry){.fire_ms = p->fire_ms, .kept = p};
            strcpy(e->id, p->id);
            if (nskip < 4096) strcpy(skip_ids[nskip++], p->id);
        }
    }
    /* SlotIdentifier.upcoming: Mon-Fri 09:30..21:30 every 30 min, strictly after now, skipping
     * opened dates and known identifiers, at most CAP, over at most 732 days. */
    time_t t0 = (time_t)(now / 1000);
    struct tm day;
    localtime_r(&t0, &day);
    int ncand = 0;
    for (int d = 0; d < 732 && ncand < CAP; d++) {
        struct tm date = {.tm_year = day.tm_year, .tm_mon = day.tm_mon, .tm_mday = day.tm_mday + d, .tm_hour = 12, .tm_isdst = -1};
        mktime(&date); /* normalizes the date and sets tm_wday */
        char iso[11];
        snprintf(iso, sizeof iso, "%04d-%02d-%02d", date.tm_year + 1900, date.tm_mon + 1, date.tm_mday);
        if (date.tm_wday == 0 || date.tm_wday == 6 || contains(opened, nopened, iso)) continue;
        for (int m = 9 * 60 + 30; m <= 21 * 60 + 30 && ncand < CAP; m += 30) {
            struct tm r = {.tm_year = date.tm_year, .tm_mon = date.tm_mon, .tm_mday = date.tm_mday,
                           .tm_hour = m / 60, .tm_min = m % 60, .tm_isdst = -1};
            long long fire = (long long)mktime(&r) * 1000;
            /* A reading skipped by a DST change has no instant: mktime moves it, so leave it out. */
            if (r.tm_hour != m / 60 || r.tm_min != m % 60 || fire <= now) continue;
            Entry e = {.fire_ms = fire, .is_new = 1};
            snprintf(e.id, sizeof e.id, PREFIX "%04d_%02d_%02d_%02d_%02d", r.tm_year + 1900, r.tm_mon + 1, r.tm_mday, r.tm_hour, r.tm_min);
            if (contains(skip_ids, nskip, e.id)) continue;
            strcpy(e.date, iso);
            rfc3339(fire, e.local_time, sizeof e.local_time);
            entries[nentries++] = e;
            ncand++;
        }
    }
    /* Keep the soonest CAP of pending + candidates, ties by identifier. */
    qsort(entries, nentries, sizeof *entries, by_time_then_id);
    int nadded = 0;
    for (int i = 0; i < nentries; i++) {
        if (!entries[i].is_new && i >= CAP) displaced[ndisplaced++] = entries[i].kept;
        if (entries[i].is_new && i < CAP) entries[nadded++] = entries[i]; /* compacts the added ones in front */
    }

    /* recordAppOpen: the event, then today's cancellations. */
    char now_text[40];
    rfc3339(now, now_text, sizeof now_text);
    /* The event row first (a random id, its stamp), as the planner records every change. */
    s = prepare("INSERT INTO event (id, at_ms, origin, kind, payload, device, stamp_ms, stamp_counter) "
                "VALUES (lower(hex(randomblob(16))), ?, 'open', 'open', ?, '', ?, 0) RETURNING id");
    rebind(s);
    char payload[200];
    snprintf(payload, sizeof payload, "zone=%s offset=%d", zone_name, 0);
    sqlite3_bind_int64(s, 1, now);
    sqlite3_bind_text(s, 2, payload, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 3, now);
    char event_id[40] = "";
    if (sqlite3_step(s) == SQLITE_ROW) snprintf(event_id, sizeof event_id, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    s = prepare("INSERT INTO app_open (opened_at_ms, local_date, local_time, zone, cancelled, event_id, origin) VALUES (?, ?, ?, ?, ?, ?, 'open')");
    rebind(s);
    sqlite3_bind_int64(s, 1, now);
    sqlite3_bind_text(s, 2, today, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, now_text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 4, zone_name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 5, ncancelled);
    sqlite3_bind_text(s, 6, event_id, -1, SQLITE_TRANSIENT);
    run(s);
    sqlite3_finalize(s);

    /* transition(cancelled), then apply(refill): missed, displaced, inserts, plan. */
    struct { Pending **list; int n; const char *state, *reason; } moves[] = {
        {cancelled, ncancelled, "cancelled", "app opened"},
        {missed, nmissed, "missed", "past grace period"},
        {displaced, ndisplaced, "displaced", "pushed out of the 64 by a sooner request"},
    };
    for (int k = 0; k < 3; k++) {
        if (moves[k].n == 0) continue;
        s = prepare("UPDATE request SET state = ?, reason = ?, changed_at_ms = ?\nWHERE id = ? AND state IN ('pending', 'displaced')");
        for (int i = 0; i < moves[k].n; i++) {
            rebind(s);
            sqlite3_bind_text(s, 1, moves[k].state, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(s, 2, moves[k].reason, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(s, 3, now);
            sqlite3_bind_int64(s, 4, moves[k].list[i]->rowid);
            run(s);
        }
        sqlite3_finalize(s);
    }
    s = prepare("INSERT INTO request (identifier, kind, fire_at_ms, local_date, local_time, zone, title, body,\n"
                "                     state, created_at_ms, changed_at_ms)\n"
                "VALUES (?, 'slot', ?, ?, ?, ?, ?, ?, 'pending', ?, ?)");
    for (int i = 0; i < nadded; i++) {
        Entry *e = &entries[i];
        rebind(s);
        sqlite3_bind_text(s, 1, e->id, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 2, e->fire_ms);
        sqlite3_bind_text(s, 3, e->date, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 4, e->local_time, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 5, zone_name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 6, TITLE, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(s, 7, BODY, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(s, 8, now);
        sqlite3_bind_int64(s, 9, now);
        run(s);
    }
    sqlite3_finalize(s);
    s = prepare("UPDATE plan SET last_refill_at_ms = ?, last_refill_added = ? WHERE id = 1");
    rebind(s);
    sqlite3_bind_int64(s, 1, now);
    sqlite3_bind_int64(s, 2, nadded);
    run(s);
    sqlite3_finalize(s);
    exec("COMMIT");
    sqlite3_close_v2(db);
    return 0;
}
