-- 0014_calendar_pass.sql: a calendar pass that costs what changed, not the horizon's length (issue 31). Never
-- edit once shipped.
--
-- Every writing command lists the calendar folder, reads back the planner's files changed since, and makes
-- the folder what the plan wants; with `calendar-days 60` that was 1,500 files compared each time. The
-- folder is cut in buckets (`CalendarBucket`: the date a planner file's name carries, or `oneoff`). After a
-- pass has made a bucket what its plan wants, and found every file in it as its `calendar_file` row says,
-- it records here the bucket's listing and plan. A later pass looks into a bucket only when its listing (a
-- file added, removed, renamed over, written or touched) or its plan (a setting, an open, a skip, a pause,
-- a one-off, a slot of today passing) differs from what is recorded. Never synced: each device has its own
-- folder and rows.
CREATE TABLE calendar_pass (
    folder   TEXT NOT NULL,   -- the calendar-folder setting the pass was made in
    bucket   TEXT NOT NULL,   -- a date (YYYY-MM-DD) or 'oneoff'
    listing  TEXT NOT NULL,   -- digest of the bucket's files as listed after the pass ('': none)
    plan     TEXT NOT NULL,   -- digest of what the plan makes the bucket's items from
    PRIMARY KEY (folder, bucket)
) WITHOUT ROWID;
