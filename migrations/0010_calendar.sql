-- 0010_calendar.sql: the plan as a calendar folder (a vdir, issue 22). Never edit once shipped.
--
-- What the planner last wrote to the folder, or found there: `open` rewrites one day's files from these
-- rows without listing or reading the folder, and a full run re-reads only files whose size or mtime
-- changed since.
CREATE TABLE calendar_file (
    name     TEXT    PRIMARY KEY,   -- `<UID>.ics` in the folder
    day      TEXT,                  -- the study day it belongs to (NULL: a one-off, or not ours)
    digest   TEXT,                  -- of the text written, DTSTAMP left out; '' changed since (rewrite it);
                                    -- NULL: a file the planner read and must not touch (foreign, unusable)
    size     INTEGER NOT NULL,      -- as written or read
    mtime_ns INTEGER NOT NULL,
    problem  TEXT                   -- why it is ignored (shown by sync and status), NULL when it is not
) WITHOUT ROWID;
CREATE INDEX calendar_file_day ON calendar_file (day);
