-- 0004_record_index.sql: `planner stats` counts each day's delivered and missed study slots, and the
-- ones delivered after the day's first open. This index holds just those rows and every column the two
-- queries read, so ten years of history are counted without touching the table (bench/STATS_RESULTS.md).
-- Never edit once shipped.
CREATE INDEX request_record ON request (local_date, state, delivered_at_ms)
WHERE kind = 'slot' AND state IN ('delivered', 'missed');
