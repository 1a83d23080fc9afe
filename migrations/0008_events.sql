-- 0008_events.sql: every change a person or another program makes to the plan is an event, recorded here
-- and applied once. Never edit once shipped.
--
-- An open (login, `planner study`, an answer on a reminder), a skip and its removal, a pause and a resume,
-- a settings change: each is one row, with a unique id, the instant it happened and where it came from.
-- The planner applies an event at its own instant, in the same transaction that records it; an event whose
-- id is here already is never applied again (an inbox file read twice, the same open arriving twice).
-- What it changed is in the tables as before (app_open, skipped_date, pause, setting, request).

CREATE TABLE event (
    id      TEXT    PRIMARY KEY CHECK (length(id) BETWEEN 8 AND 64),  -- 32 hex digits when made here
    at_ms   INTEGER NOT NULL,  -- when it happened (Unix epoch milliseconds, UTC)
    origin  TEXT    NOT NULL,  -- what made it: open, study, answer, config, skip, pause, resume
    kind    TEXT    NOT NULL,  -- open, skip, unskip, pause, resume, settings
    payload TEXT    NOT NULL   -- its fields, as the inbox writes them: name=value, %XX for spaces
) WITHOUT ROWID;
CREATE INDEX event_at ON event (at_ms);

-- Which event each open was, and where it came from (NULL: recorded before events existed).
ALTER TABLE app_open ADD COLUMN event_id TEXT REFERENCES event (id);
ALTER TABLE app_open ADD COLUMN origin TEXT;

-- Every event, oldest first.
CREATE VIEW events AS
SELECT id,
       strftime('%Y-%m-%dT%H:%M:%fZ', at_ms / 1000.0, 'unixepoch') AS at,
       origin,
       kind,
       payload
FROM event
ORDER BY at_ms, id;

-- Every open, oldest first, now with where it came from.
DROP VIEW app_open_events;
CREATE VIEW app_open_events AS
SELECT strftime('%Y-%m-%dT%H:%M:%SZ', opened_at_ms / 1000, 'unixepoch') AS opened_at,
       local_time AS opened_at_local,
       local_date,
       zone,
       cancelled,
       origin,
       event_id
FROM app_open
ORDER BY opened_at_ms;
