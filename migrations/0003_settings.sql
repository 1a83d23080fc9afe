-- 0003_settings.sql: a plan the user owns (settings, skipped dates, pauses) and the request states
-- that pausing, skipping and re-planning need. Never edit once shipped.
--
-- New request states (see 0001 for the others). None of them ends a slot: when its day is back in the
-- plan and its time still ahead, refill plans the identifier again (a new row; this one stays as history).
--   paused   -> its time fell in a pause (`planner pause`)
--   skipped  -> its date was skipped (`planner skip`)
--   retired  -> the plan no longer has it as it was: schedule, zone or content changed (reason says which)

-- `request` is rebuilt, as SQLite cannot change a CHECK constraint: the views and triggers naming it are
-- dropped first and created again below (the "recreate a table" recipe).
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
    state           TEXT    NOT NULL DEFAULT 'pending'
                    CHECK (state IN ('pending', 'delivering', 'delivered', 'missed', 'failed', 'cancelled',
                                     'displaced', 'replaced', 'paused', 'skipped', 'retired')),
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

-- Only forward transitions. Paused, skipped and retired rows stay so: the slot comes back as a new row.
CREATE TRIGGER request_state_transition BEFORE UPDATE OF state ON request
WHEN NOT (
       OLD.state = NEW.state
    OR OLD.state = 'pending'
    OR (OLD.state = 'delivering' AND NEW.state IN ('delivered', 'failed', 'missed'))
    OR (OLD.state = 'displaced' AND NEW.state IN ('pending', 'missed', 'cancelled', 'replaced', 'paused', 'skipped', 'retired'))
)
BEGIN
    SELECT RAISE(ABORT, 'planner: a finished request cannot change state');
END;

-- The user's settings, one row per key. `default_value` is what `planner config reset` restores.
-- Values are the canonical text `planner config` shows; the planner checks them when it reads them.
CREATE TABLE setting (
    key           TEXT    PRIMARY KEY,
    value         TEXT    NOT NULL,
    default_value TEXT    NOT NULL,
    changed_at_ms INTEGER            -- when `config set`/`reset` last changed it (NULL: never)
) WITHOUT ROWID;
INSERT INTO setting (key, value, default_value) VALUES
    ('window',   '09:30-21:30', '09:30-21:30'),
    ('interval', '30m', '30m'),
    ('days',     'mon-fri', 'mon-fri'),
    ('title',    'Time to study?', 'Time to study?'),
    ('body',     'Start today''s lesson: reminders stop for the day once you begin.',
                 'Start today''s lesson: reminders stop for the day once you begin.'),
    ('icon',     'appointment-soon', 'appointment-soon'),
    ('urgency',  'normal', 'normal'),
    ('grace',    '15m', '15m'),
    ('zone',     'system', 'system');

-- Dates with no study slot (holidays, a trip). A removed skip keeps its row, with removed_at_ms set.
CREATE TABLE skipped_date (
    local_date    TEXT    PRIMARY KEY CHECK (local_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    reason        TEXT,
    skipped_at_ms INTEGER NOT NULL,
    removed_at_ms INTEGER
) WITHOUT ROWID;

-- Pauses: no study slot is pending or delivered from since_ms until until_ms (NULL: until `resume`).
-- `resume`, or a new pause, ends the one in force by setting ended_at_ms.
CREATE TABLE pause (
    id          INTEGER PRIMARY KEY,
    since_ms    INTEGER NOT NULL,
    until_ms    INTEGER,
    ended_at_ms INTEGER
);
CREATE INDEX pause_open ON pause (since_ms) WHERE ended_at_ms IS NULL;

-- Views: the supported way to inspect the plan with SQL (the three request views are unchanged).

-- Every setting, its value and whether it is the default.
CREATE VIEW settings AS
SELECT key, value, value = default_value AS is_default
FROM setting
ORDER BY key;

-- Dates skipped now (removed skips are left out).
CREATE VIEW skipped_dates AS
SELECT local_date, reason,
       strftime('%Y-%m-%dT%H:%M:%SZ', skipped_at_ms / 1000, 'unixepoch') AS skipped_at
FROM skipped_date
WHERE removed_at_ms IS NULL
ORDER BY local_date;

-- Every pause, oldest first; `until` NULL means until `resume`, `ended_at` when it was ended early.
CREATE VIEW pauses AS
SELECT strftime('%Y-%m-%dT%H:%M:%SZ', since_ms / 1000, 'unixepoch') AS since,
       strftime('%Y-%m-%dT%H:%M:%SZ', until_ms / 1000, 'unixepoch') AS until,
       strftime('%Y-%m-%dT%H:%M:%SZ', ended_at_ms / 1000, 'unixepoch') AS ended_at
FROM pause
ORDER BY since_ms, id;

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
