-- 0021_lean_event.sql: an event costs two index entries fewer to record. Never edit once shipped.
--
-- A first sync records thousands of another device's events, and each index on `event` is one more B-tree
-- insert per event. `event_at` served only the `events` view's order (a view a person reads, sorted when
-- read); `event_stamp` served only the greatest stamp, now read as the greatest of each kind's
-- (`event_kind_stamp`, one seek a kind).
DROP INDEX event_at;
DROP INDEX event_stamp;
