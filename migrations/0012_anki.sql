-- 0012_anki.sql: Anki's review log as opens (issue 32). Never edit once shipped.
--
-- What this device last read of its Anki collection (the `anki-collection` setting), one row per path.
-- The planner never opens the file Anki holds: a child copies its bytes (the database and its -wal) into
-- a private folder beside this database, and the planner reads the copy. These columns say what the copy
-- was made from (an unchanged collection is not copied again) and how far its review log was read (only
-- new reviews are looked at). Never synced: each device reads its own collection.
CREATE TABLE anki_read (
    collection  TEXT    PRIMARY KEY,          -- the setting's path
    db_file     TEXT    NOT NULL DEFAULT '',  -- device:inode:size:mtime_ns:ctime_ns of the database when copied
    wal_file    TEXT    NOT NULL DEFAULT '',  -- the same of its -wal ('-': there was none)
    reviews     INTEGER NOT NULL DEFAULT 0,   -- rows in its revlog at the last read
    last_review INTEGER NOT NULL DEFAULT 0,   -- the largest revlog id read (the review's epoch milliseconds)
    problem     TEXT,                         -- why the last read failed (status shows it); NULL: it worked
    read_at_ms  INTEGER                       -- when it was last read
) WITHOUT ROWID;
