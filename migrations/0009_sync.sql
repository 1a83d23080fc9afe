-- 0009_sync.sql: one plan on several devices, through a folder a sync engine (Syncthing) shares. Never edit
-- once shipped.
--
-- Each device appends its own events to files of its own in the folder (`planner-<device>-<n>.events`)
-- and applies the other devices' events. Settings, skips and the pause are last-writer-wins by a hybrid
-- logical clock stamp (`register` holds the winning stamp of each); opens are a union.

-- Which device made each event and its stamp; when another device's was applied here, when this device's
-- was written to the sync folder.
ALTER TABLE event ADD COLUMN device TEXT NOT NULL DEFAULT '';   -- '': this device, before it had an id
ALTER TABLE event ADD COLUMN stamp_ms INTEGER;                  -- NULL: made before stamps (read as at_ms)
ALTER TABLE event ADD COLUMN stamp_counter INTEGER NOT NULL DEFAULT 0;
ALTER TABLE event ADD COLUMN received_ms INTEGER;               -- another device's: applied here then
ALTER TABLE event ADD COLUMN published_ms INTEGER;              -- this device's: written to the sync folder then
CREATE INDEX event_stamp ON event (stamp_ms, stamp_counter);
CREATE INDEX event_unpublished ON event (at_ms) WHERE received_ms IS NULL AND published_ms IS NULL;

-- The last change each last-writer-wins thing took: `setting:<key>`, `skip:<date>`, `pause`.
CREATE TABLE register (
    name          TEXT    PRIMARY KEY,
    stamp_ms      INTEGER NOT NULL,
    stamp_counter INTEGER NOT NULL,
    stamp_device  TEXT    NOT NULL,
    event_id      TEXT                -- NULL: a change made before events had stamps
) WITHOUT ROWID;
-- Changes made before this migration keep their place: their own time, before any stamped change of it.
INSERT INTO register (name, stamp_ms, stamp_counter, stamp_device)
SELECT 'setting:' || key, changed_at_ms, 0, '' FROM setting WHERE changed_at_ms IS NOT NULL;
INSERT INTO register (name, stamp_ms, stamp_counter, stamp_device)
SELECT 'skip:' || local_date, max(skipped_at_ms, coalesce(removed_at_ms, 0)), 0, '' FROM skipped_date;
INSERT INTO register (name, stamp_ms, stamp_counter, stamp_device)
SELECT 'pause', max(max(since_ms, coalesce(ended_at_ms, 0))), 0, '' FROM pause HAVING count(*) > 0;

-- The devices seen in the sync folder, this one included (is_self = 1, its id made at its first sync).
CREATE TABLE device (
    id            TEXT    PRIMARY KEY CHECK (length(id) = 32),
    name          TEXT    NOT NULL DEFAULT '',
    is_self       INTEGER NOT NULL DEFAULT 0 CHECK (is_self IN (0, 1)),
    first_seen_ms INTEGER NOT NULL,
    last_event_ms INTEGER,            -- its latest event's own time
    offset_ms     INTEGER,            -- its clock minus ours, at most (its events' time minus when they arrived)
    events        INTEGER NOT NULL DEFAULT 0,
    out_seq       INTEGER NOT NULL DEFAULT 0,  -- this device: the number of the file it appends to
    out_size      INTEGER NOT NULL DEFAULT 0   -- this device: that file's size after its last append
) WITHOUT ROWID;
CREATE UNIQUE INDEX device_self ON device (is_self) WHERE is_self = 1;

-- The folder's files as last read: only what was appended since is read again.
CREATE TABLE sync_file (
    name     TEXT    PRIMARY KEY,
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    consumed INTEGER NOT NULL,  -- bytes of whole lines read
    problem  TEXT               -- why some or all of it was not applied (shown by status)
) WITHOUT ROWID;

-- Every event, oldest first, with the device it came from.
DROP VIEW events;
CREATE VIEW events AS
SELECT e.id,
       strftime('%Y-%m-%dT%H:%M:%fZ', e.at_ms / 1000.0, 'unixepoch') AS at,
       e.origin,
       e.kind,
       e.payload,
       CASE WHEN e.device = '' OR d.is_self = 1 THEN 'this device' ELSE coalesce(nullif(d.name, ''), e.device) END AS device,
       e.device AS device_id,
       coalesce(e.stamp_ms, e.at_ms) || '.' || e.stamp_counter AS stamp
FROM event e LEFT JOIN device d ON d.id = e.device
ORDER BY e.at_ms, e.id;

-- Every open, oldest first, with where it came from.
DROP VIEW app_open_events;
CREATE VIEW app_open_events AS
SELECT strftime('%Y-%m-%dT%H:%M:%SZ', o.opened_at_ms / 1000, 'unixepoch') AS opened_at,
       o.local_time AS opened_at_local,
       o.local_date,
       o.zone,
       o.cancelled,
       o.origin,
       o.event_id,
       CASE WHEN e.device IS NULL OR e.device = '' OR d.is_self = 1 THEN 'this device'
            ELSE coalesce(nullif(d.name, ''), e.device) END AS device
FROM app_open o LEFT JOIN event e ON e.id = o.event_id LEFT JOIN device d ON d.id = e.device
ORDER BY o.opened_at_ms;

-- The devices seen, this one first.
CREATE VIEW devices AS
SELECT id,
       name,
       is_self,
       strftime('%Y-%m-%dT%H:%M:%SZ', first_seen_ms / 1000, 'unixepoch') AS first_seen,
       strftime('%Y-%m-%dT%H:%M:%SZ', last_event_ms / 1000, 'unixepoch') AS last_event,
       offset_ms,
       events
FROM device
ORDER BY is_self DESC, name, id;
