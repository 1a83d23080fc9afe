-- 0002_delivery.sql: what `planner tick` records about each delivery, and one-off requests.
-- Never edit once shipped.

-- When a ticker claimed the request (state 'delivering') and how many delivery attempts it made.
-- A request claimed long ago and still 'delivering' belongs to a ticker that died mid-delivery
-- (kill -9, power cut): it is marked failed, never delivered again (at most once).
ALTER TABLE request ADD COLUMN claimed_at_ms INTEGER;
ALTER TABLE request ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;

-- `planner history` lists what happened most recently first.
CREATE INDEX request_changed_at ON request (changed_at_ms);
-- Claims in flight: looked up on every ticker start and every --once run.
CREATE INDEX request_delivering ON request (claimed_at_ms) WHERE state = 'delivering';
