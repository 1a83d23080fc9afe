-- 0011_history.sql: the shared plan as a function of the shared history (issue 28). Never edit once shipped.
--
-- What devices share is derived from the set of events ordered by stamp, not from the order they arrived
-- in: an open's study day is the one the settings in force at its stamp give, the pause history is the
-- pause and resume events in stamp order. These columns let an event that arrives late re-derive what it
-- changes (and only that).

-- Events made before stamps existed are stamped with their own time, as they were published
-- (`coalesce(stamp_ms, at_ms)`): every device then orders them the same way, and one index range finds them.
UPDATE event SET stamp_ms = at_ms WHERE stamp_ms IS NULL;

-- Which event started each pause (NULL: a pause made before events existed, never re-derived).
ALTER TABLE pause ADD COLUMN event_id TEXT REFERENCES event (id);
UPDATE pause SET event_id = (SELECT e.id FROM event e WHERE e.kind = 'pause' AND e.at_ms = pause.since_ms
                             ORDER BY e.stamp_ms, e.stamp_counter LIMIT 1);

-- Events of one kind in stamp order (settings, pauses): what an out-of-order event re-derives from.
CREATE INDEX event_kind_stamp ON event (kind, stamp_ms, stamp_counter);

-- An open that moved to another study day (a settings change that happened before it arrived late) no
-- longer closes the day it was first recorded on: that day's slots it cancelled are planned again.
INSERT INTO request_transition (from_state, to_state) VALUES ('cancelled', 'retired');

-- A file whose lines are dated too far ahead of this device's clock is read again from them once the clock
-- has caught up (NULL: nothing waits). Such lines are never consumed: a clock ahead delays, never loses.
ALTER TABLE sync_file ADD COLUMN waiting_ms INTEGER;

-- Event ids that arrived with two different contents (a conflict copy edited, a forged line): every device
-- keeps the same version (the greater hash of its line); `status` lists them.
CREATE TABLE event_conflict (
    id            TEXT    PRIMARY KEY,
    first_seen_ms INTEGER NOT NULL
) WITHOUT ROWID;

-- Each device's claim of the plan's zone (at most one each): whether this device has made its own.
CREATE INDEX event_plan_zone ON event (device) WHERE origin = 'plan-zone';

-- The open an event made: an open whose day is derived again is found from its event.
CREATE INDEX app_open_event ON app_open (event_id);

-- The settings changes that decide a study day (zone, window, interval, or a reset), in stamp order: what
-- an open's day is derived from, read without scanning a year of other settings changes. The queries
-- that use it repeat this WHERE clause word for word (SQLite uses a partial index only then).
CREATE INDEX event_day_rule ON event (stamp_ms, stamp_counter)
WHERE kind = 'settings' AND (instr(payload, 'set.zone=') OR instr(payload, 'set.window=') OR instr(payload, 'set.interval=')
                             OR instr(payload, 'reset='));

-- A study day's slots by state: an open moved to another day cancels that day's and gives back the old one's.
CREATE INDEX request_slot_day ON request (local_date, state) WHERE kind = 'slot';
