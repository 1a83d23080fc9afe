-- 0016_relay.sql: a device restored from a backup gets back what it had published. Never edit once shipped.
--
-- `tail`: the last bytes of a file before `consumed` as this device read them. A file whose bytes there
-- differ (or that is shorter than `consumed`) was put back (a restore, a rolled-back sync): it is read again
-- from its start, and the events of its device that this device holds and the file no longer has are
-- relayed: written into this device's own file with `via=<this device>`, so the device that lost them
-- (and every other) reads them back.
ALTER TABLE sync_file ADD COLUMN tail BLOB;

-- The sync folder file whose line brought an event here (NULL: made here, or read before this column).
ALTER TABLE event ADD COLUMN carrier TEXT;
-- No index: it is looked up only when a file was put back (a restore), and every event received would pay
-- for one.

-- An open read from Anki's review log is the same event whichever computer read it: recorded as Anki's.
UPDATE event SET device = 'anki' WHERE origin = 'anki' AND kind = 'open';

-- Another device's events this device writes for it (`via=`): `published_ms` NULL until written.
CREATE TABLE relay (
    event_id     TEXT    PRIMARY KEY,
    device       TEXT    NOT NULL,  -- the device whose file lost it
    noticed_ms   INTEGER NOT NULL,
    published_ms INTEGER
) WITHOUT ROWID;

-- A day's open from Anki is its earliest review's: a review synced later with an earlier time moves it (the
-- later one stays in `app_open`, since every device holds both events, but is not shown).
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
WHERE o.origin <> 'anki'
   OR NOT EXISTS (SELECT 1 FROM app_open f WHERE f.local_date = o.local_date AND f.origin = 'anki' AND f.opened_at_ms < o.opened_at_ms)
ORDER BY o.opened_at_ms;
