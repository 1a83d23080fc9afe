#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: bind calls need it so SQLite copies the text.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
