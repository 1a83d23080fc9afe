/* open_min_c.c: the job of `planner open` done the least a C program could do it — the second floor of
 * bench/open_bench.sh (open_c.c is the first: the planner's own SQL, schema and checks). A two-table
 * schema with no triggers, views, settings or checks: record the open, mark the rest of today's slots
 * cancelled, top the plan up to 64 pending weekday slots (09:30-21:30 every 30 minutes) after now.
 * Same durability as the planner: WAL, synchronous = FULL, one BEGIN IMMEDIATE transaction.
 *
 *   build:  gcc -O2 -o open_min_c bench/open_min_c.c -lsqlite3
 *   usage:  TZ=Asia/Seoul ./open_min_c init DB YYYY-MM-DDTHH:MM HISTORY_DAYS   (a template: 64 pending
 *                                                 at that time, HISTORY_DAYS of delivered rows before it)
 *           TZ=Asia/Seoul ./open_min_c DB YYYY-MM-DDTHH:MM                     (the job)
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CAP 64
static sqlite3 *db;

static void die(const char *what) {
    fprintf(stderr, "open_min_c: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
    exit(1);
}
static void exec(const char *sql) { if (sqlite3_exec(db, sql, 0, 0, 0) != SQLITE_OK) die(sql); }
static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, 0) != SQLITE_OK) die(sql);
    return s;
}

static long long parse_local(const char *text) {
    struct tm w = {0};
    if (sscanf(text, "%d-%d-%dT%d:%d", &w.tm_year, &w.tm_mon, &w.tm_mday, &w.tm_hour, &w.tm_min) != 5) die("bad time");
    w.tm_year -= 1900; w.tm_mon -= 1; w.tm_isdst = -1;
    return (long long)mktime(&w) * 1000;
}

/* The slot of day `d` (days after 1970-01-01 local) number `k` (0..24), or -1 on a weekend. */
static long long slot_ms(int d, int k, char id[64], char date[40]) {
    struct tm t = {0};
    t.tm_year = 70; t.tm_mday = 1 + d; t.tm_hour = 9; t.tm_min = 30 + 30 * k; t.tm_isdst = -1;
    time_t at = mktime(&t);
    if (t.tm_wday == 0 || t.tm_wday == 6) return -1;
    snprintf(id, 64, "Noti_AppOpenPromotion_%04d_%02d_%02d_%02d_%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min);
    snprintf(date, 40, "%04d-%02d-%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday);
    return (long long)at * 1000;
}

static int local_day(long long ms) {
    time_t s = ms / 1000;
    struct tm t;
    localtime_r(&s, &t);
    struct tm u = {0};
    u.tm_year = t.tm_year; u.tm_mon = t.tm_mon; u.tm_mday = t.tm_mday; u.tm_hour = 12; u.tm_isdst = -1;
    return (int)((timegm(&u) / 86400));
}

/* Adds slots after `after` (not on `skip_day`) until `pending` reach the cap. */
static void top_up(long long after, int skip_day, int pending, int state, long long until) {
    sqlite3_stmt *add = prepare("INSERT OR IGNORE INTO slot (id, fire_at, date, state) VALUES (?, ?, ?, ?)");
    for (int d = local_day(after); pending < CAP || (until && d <= local_day(until)); d++) {
        if (d == skip_day) continue;
        for (int k = 0; k < 25 && (pending < CAP || until); k++) {
            char id[64], date[40];
            long long at = slot_ms(d, k, id, date);
            if (at < 0) break;
            if (at <= after || (until && at >= until)) continue;
            sqlite3_bind_text(add, 1, id, -1, SQLITE_STATIC);
            sqlite3_bind_int64(add, 2, at);
            sqlite3_bind_text(add, 3, date, -1, SQLITE_STATIC);
            sqlite3_bind_int(add, 4, state);
            if (sqlite3_step(add) != SQLITE_DONE) die("insert");
            sqlite3_reset(add);
            if (!until) pending++;
        }
        if (until && d >= local_day(until)) break;
    }
    sqlite3_finalize(add);
}

int main(int argc, char **argv) {
    if (!getenv("TZ")) { fprintf(stderr, "open_min_c: set TZ\n"); return 64; }
    tzset();
    if (argc == 5 && strcmp(argv[1], "init") == 0) {
        if (sqlite3_open(argv[2], &db) != SQLITE_OK) die("open");
        exec("PRAGMA journal_mode = WAL");
        exec("CREATE TABLE slot (id TEXT PRIMARY KEY, fire_at INTEGER NOT NULL, date TEXT NOT NULL, state INTEGER NOT NULL);"
             "CREATE INDEX slot_state ON slot (state, date);"
             "CREATE TABLE opened (date TEXT NOT NULL, at INTEGER NOT NULL);");
        long long now = parse_local(argv[3]);
        exec("BEGIN");
        /* History: the slots before now delivered (state 1) over HISTORY_DAYS, then 64 pending from now, as
         * the planner's templates are (Monday's 20 slots from 12:00 pending). */
        top_up(now - atoll(argv[4]) * 86400000LL - 1, -1, 0, 1, now);
        top_up(now - 1, -1, 0, 0, 0);
        exec("COMMIT");
        sqlite3_close(db);
        return 0;
    }
    if (argc != 3) { fprintf(stderr, "usage: open_min_c [init] DB TIME [HISTORY_DAYS]\n"); return 64; }
    long long now = parse_local(argv[2]);
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, 0) != SQLITE_OK) die("open");
    sqlite3_busy_timeout(db, 10000);
    exec("PRAGMA synchronous = FULL");
    exec("BEGIN IMMEDIATE");
    int today = local_day(now);
    char date[40], id[64];
    slot_ms(today, 0, id, date);  /* today's date text (a weekday in the bench) */
    sqlite3_stmt *s = prepare("INSERT INTO opened (date, at) VALUES (?, ?)");
    sqlite3_bind_text(s, 1, date, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, now);
    if (sqlite3_step(s) != SQLITE_DONE) die("open");
    sqlite3_finalize(s);
    s = prepare("UPDATE slot SET state = 2 WHERE state = 0 AND date = ?");
    sqlite3_bind_text(s, 1, date, -1, SQLITE_STATIC);
    if (sqlite3_step(s) != SQLITE_DONE) die("cancel");
    sqlite3_finalize(s);
    s = prepare("SELECT count(*), coalesce(max(fire_at), 0) FROM slot WHERE state = 0");
    if (sqlite3_step(s) != SQLITE_ROW) die("count");
    int pending = sqlite3_column_int(s, 0);
    long long last = sqlite3_column_int64(s, 1);
    sqlite3_finalize(s);
    top_up(last > now ? last : now, today, pending, 0, 0);
    exec("COMMIT");
    if (sqlite3_close(db) != SQLITE_OK) die("close");
    return 0;
}
