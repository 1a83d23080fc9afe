-- 0006_notification_actions.sql: a reminder you can answer. Every action taken on a desktop notification
-- ("Start studying", clicking it, "Snooze") is a row: what was answered, when, and what the planner did.
-- Never edit once shipped.
CREATE TABLE notification_action (
    id         INTEGER PRIMARY KEY,
    request_id INTEGER NOT NULL REFERENCES request (id),
    identifier TEXT    NOT NULL,                   -- the answered reminder's identifier
    action     TEXT    NOT NULL CHECK (action IN ('default', 'start', 'snooze')),
    at_ms      INTEGER NOT NULL,
    outcome    TEXT    NOT NULL                    -- what it did: "opened the day", "snoozed as …", "ignored: …"
);

-- Every action taken, oldest first.
CREATE VIEW notification_actions AS
SELECT identifier,
       action,
       strftime('%Y-%m-%dT%H:%M:%SZ', at_ms / 1000, 'unixepoch') AS at,
       outcome
FROM notification_action
ORDER BY at_ms, id;
