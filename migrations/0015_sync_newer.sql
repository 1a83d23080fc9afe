-- 0015_sync_newer.sql: lines from a newer planner wait in the sync folder instead of being refused for good.
-- Never edit once shipped.
--
-- A line of a later format version, a kind of change or a setting this planner does not know was written
-- by a newer planner. It is left unconsumed (`consumed` stops before the first such line) and the file is
-- read again from there once a planner that knows more reads the folder: this column holds the digest of
-- what the reader that left them knew (`PlanEventText.readerDigest`); NULL when no such line was left.
ALTER TABLE sync_file ADD COLUMN newer_reader TEXT;
