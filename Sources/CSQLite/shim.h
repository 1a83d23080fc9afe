#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: bind calls need it so SQLite copies the text.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_db_config is variadic, which Swift cannot call. While a file is being checked, closing the
/// connection must not checkpoint a leftover WAL into it: a refused file stays byte-identical.
static inline int csqlite_set_checkpoint_on_close(sqlite3 *db, int enabled) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1, (int *)0);
}

/// sqlite3_config is variadic too. Each connection's page cache starts with a bulk allocation for 20 pages
/// whose headers SQLite writes at once: ~90 KiB of dirty memory a planner database (a few dozen pages,
/// read once) never needs. Without it pages are allocated as they are read. Call before the first open.
static inline int csqlite_no_bulk_page_cache(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}

/// No memory statistics: SQLite counts every allocation (a mutex and a counter update each) for
/// sqlite3_memory_used, which the planner never asks. Call before the first open.
static inline int csqlite_no_memory_status(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// Single-thread mode: no mutex around any SQLite call. Only for a process with one thread that uses
/// SQLite (the planner binary); tests run connections on parallel threads and keep the default.
static inline int csqlite_single_thread(void) {
    return sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
}
