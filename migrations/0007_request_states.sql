-- 0007_request_states.sql: the request states and the transitions between them become rows, so the
-- rules live once, in data the schema enforces (the Swift enum is checked against them by a test):
-- a new state is one enum case and one migration inserting rows here. Never edit once shipped.
-- `SELECT * FROM request_states` shows each state, what it means and what it may become.

CREATE TABLE request_state (
    name      TEXT    PRIMARY KEY,
    -- 1: a study slot with a row in this state is never planned again (RequestState.endsTheSlot).
    ends_slot INTEGER NOT NULL CHECK (ends_slot IN (0, 1)),
    meaning   TEXT    NOT NULL
) WITHOUT ROWID;
INSERT INTO request_state (name, ends_slot, meaning) VALUES
    ('pending',    0, 'waiting for its time (at most 64 at any moment)'),
    ('delivering', 1, 'claimed by a ticker, delivery in progress'),
    ('delivered',  1, 'reached the user (delivered_at_ms is set)'),
    ('missed',     0, 'its time passed more than the grace period ago without delivery'),
    ('failed',     1, 'every delivery attempt failed (error says why)'),
    ('cancelled',  1, 'removed by `planner open` (the app was opened that day)'),
    ('displaced',  0, 'pushed out of the 64 by a sooner request; a later refill may bring it back'),
    ('replaced',   0, 'a request with the same identifier was added in its place'),
    ('paused',     0, 'its time fell in a pause (`planner pause`); planned again as a new row'),
    ('skipped',    0, 'its date was skipped (`planner skip`); planned again as a new row'),
    ('retired',    0, 'no longer part of the plan as it is: schedule, zone or content changed (reason says which)');

-- The changes of state a request may make; staying in the same state is always allowed.
CREATE TABLE request_transition (
    from_state TEXT NOT NULL REFERENCES request_state (name),
    to_state   TEXT NOT NULL REFERENCES request_state (name),
    PRIMARY KEY (from_state, to_state)
) WITHOUT ROWID;
INSERT INTO request_transition (from_state, to_state)
SELECT name, name FROM request_state;
-- A pending request may become anything.
INSERT INTO request_transition (from_state, to_state)
SELECT 'pending', name FROM request_state WHERE name <> 'pending';
INSERT INTO request_transition (from_state, to_state) VALUES
    ('delivering', 'delivered'), ('delivering', 'failed'), ('delivering', 'missed'),
    ('displaced', 'pending'), ('displaced', 'missed'), ('displaced', 'cancelled'), ('displaced', 'replaced'),
    ('displaced', 'paused'), ('displaced', 'skipped'), ('displaced', 'retired');

-- `request` is rebuilt (the "recreate a table" recipe, as in 0003): its state column refers to
-- request_state instead of a CHECK listing the states. The views and triggers naming it are dropped
-- first and created again below, word for word.
DROP VIEW pending_requests;
DROP VIEW delivered_notifications;
DROP VIEW request_history;
DROP TRIGGER request_cap_on_insert;
DROP TRIGGER request_cap_on_update;
DROP TRIGGER request_state_transition;

CREATE TABLE new_request (
    id              INTEGER PRIMARY KEY,
    identifier      TEXT    NOT NULL CHECK (length(identifier) BETWEEN 1 AND 200),
    kind            TEXT    NOT NULL CHECK (kind IN ('slot', 'oneoff')),
    fire_at_ms      INTEGER NOT NULL,
    local_date      TEXT    NOT NULL CHECK (local_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    local_time      TEXT    NOT NULL,
    zone            TEXT    NOT NULL,
    title           TEXT    NOT NULL,
    body            TEXT    NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'pending' REFERENCES request_state (name),
    created_at_ms   INTEGER NOT NULL,
    changed_at_ms   INTEGER NOT NULL,
    reason          TEXT,
    delivered_at_ms INTEGER,
    error           TEXT,
    claimed_at_ms   INTEGER,
    attempts        INTEGER NOT NULL DEFAULT 0
);
INSERT INTO new_request (id, identifier, kind, fire_at_ms, local_date, local_time, zone, title, body, state,
                         created_at_ms, changed_at_ms, reason, delivered_at_ms, error, claimed_at_ms, attempts)
SELECT id, identifier, kind, fire_at_ms, local_date, local_time, zone, title, body, state,
       created_at_ms, changed_at_ms, reason, delivered_at_ms, error, claimed_at_ms, attempts
FROM request;
DROP TABLE request;
ALTER TABLE new_request RENAME TO request;

CREATE UNIQUE INDEX request_pending_identifier ON request (identifier) WHERE state = 'pending';
CREATE INDEX request_pending_fire_at ON request (fire_at_ms) WHERE state = 'pending';
CREATE INDEX request_fire_at ON request (fire_at_ms);
CREATE INDEX request_changed_at ON request (changed_at_ms);
CREATE INDEX request_delivering ON request (claimed_at_ms) WHERE state = 'delivering';
CREATE INDEX request_record ON request (local_date, state, delivered_at_ms)
WHERE kind = 'slot' AND state IN ('delivered', 'missed');

CREATE TRIGGER request_cap_on_insert BEFORE INSERT ON request
WHEN NEW.state = 'pending' AND (SELECT count(*) FROM request WHERE state = 'pending') >= 64
BEGIN
    SELECT RAISE(ABORT, 'planner: at most 64 requests may be pending');
END;

CREATE TRIGGER request_cap_on_update BEFORE UPDATE OF state ON request
WHEN NEW.state = 'pending' AND OLD.state <> 'pending'
     AND (SELECT count(*) FROM request WHERE state = 'pending') >= 64
BEGIN
    SELECT RAISE(ABORT, 'planner: at most 64 requests may be pending');
END;

-- The state rules, from the tables above, whatever PRAGMA foreign_keys says (it is off unless a
-- connection turns it on, as a sqlite3 shell does not).
CREATE TRIGGER request_state_known_on_insert BEFORE INSERT ON request
WHEN NOT EXISTS (SELECT 1 FROM request_state WHERE name = NEW.state)
BEGIN
    SELECT RAISE(ABORT, 'planner: not a request state (see the request_states view)');
END;

CREATE TRIGGER request_state_known_on_update BEFORE UPDATE OF state ON request
WHEN NOT EXISTS (SELECT 1 FROM request_state WHERE name = NEW.state)
BEGIN
    SELECT RAISE(ABORT, 'planner: not a request state (see the request_states view)');
END;

CREATE TRIGGER request_state_transition BEFORE UPDATE OF state ON request
WHEN EXISTS (SELECT 1 FROM request_state WHERE name = NEW.state)
     AND NOT EXISTS (SELECT 1 FROM request_transition WHERE from_state = OLD.state AND to_state = NEW.state)
BEGIN
    SELECT RAISE(ABORT, 'planner: a finished request cannot change state');
END;

-- Each state, what it means, whether it ends a study slot, and the states it may become.
CREATE VIEW request_states AS
SELECT s.name AS state,
       s.meaning,
       s.ends_slot,
       (SELECT group_concat(to_state, ', ')
        FROM (SELECT to_state FROM request_transition
              WHERE from_state = s.name AND to_state <> s.name ORDER BY to_state)) AS may_become
FROM request_state AS s
ORDER BY s.name;

-- Requests waiting for their time, soonest first (as in 0001).
CREATE VIEW pending_requests AS
SELECT identifier,
       strftime('%Y-%m-%dT%H:%M:%SZ', fire_at_ms / 1000, 'unixepoch') AS fire_at,
       local_time AS fire_at_local,
       fire_at_ms,
       kind,
       title,
       body,
       zone,
       strftime('%Y-%m-%dT%H:%M:%SZ', created_at_ms / 1000, 'unixepoch') AS created_at
FROM request
WHERE state = 'pending'
ORDER BY fire_at_ms, identifier;

-- Requests that reached the user (filled by `planner tick`).
CREATE VIEW delivered_notifications AS
SELECT identifier,
       strftime('%Y-%m-%dT%H:%M:%SZ', fire_at_ms / 1000, 'unixepoch') AS fire_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', delivered_at_ms / 1000.0, 'unixepoch') AS delivered_at,
       delivered_at_ms - fire_at_ms AS lateness_ms,
       local_time AS fire_at_local,
       kind,
       title,
       body
FROM request
WHERE state = 'delivered'
ORDER BY delivered_at_ms;

-- Every request ever made and what became of it.
CREATE VIEW request_history AS
SELECT identifier,
       strftime('%Y-%m-%dT%H:%M:%SZ', fire_at_ms / 1000, 'unixepoch') AS fire_at,
       local_time AS fire_at_local,
       kind,
       state,
       reason,
       strftime('%Y-%m-%dT%H:%M:%SZ', changed_at_ms / 1000, 'unixepoch') AS changed_at,
       error
FROM request
ORDER BY fire_at_ms, id;
