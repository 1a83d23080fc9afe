-- 0012_anki.sql: Anki's review log as opens (issue 32). Never edit once shipped.
--
-- What this device last read of its Anki collection (the `anki-collection` setting), one row per path.
-- The planner never opens the file Anki holds: a child copies its bytes (the database and its -wal) into
-- a private folder beside this database, and the planner reads the copy. These columns say what the copy
-- was made from, so an unchanged collection is neither copied nor read again. Never synced: each device
-- reads its own collection.
CREATE TABLE anki_read (
    collection  TEXT    PRIMARY KEY,          -- the setting's path
    db_file     TEXT    NOT NULL DEFAULT '',  -- device:inode:size:mtime_ns:ctime_ns of the database when copied ('': copy it whole)
    wal_file    TEXT    NOT NULL DEFAULT '',  -- the same of its -wal ('-': there was none)
    reviews     INTEGER NOT NULL DEFAULT 0,   -- rows in its revlog at the last read (for people: the planner reads them all)
    last_review INTEGER NOT NULL DEFAULT 0,   -- the largest revlog id then (the review's epoch milliseconds)
    more        INTEGER NOT NULL DEFAULT 0,   -- 1: days were left for the next change (the ticker applies a few at a time)
    problem     TEXT,                         -- why the last read failed (status shows it); NULL: it worked
    read_at_ms  INTEGER                       -- when it was last read
) WITHOUT ROWID;
