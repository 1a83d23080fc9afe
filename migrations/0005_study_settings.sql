-- 0005_study_settings.sql: answering a reminder. `study-command` is what `planner study` runs after it
-- records the open (empty: nothing); `snooze` is how long "Snooze" puts a reminder off; `sound` is the
-- sound a desktop notification asks the server to play (a freedesktop sound name; empty: none).
-- Never edit once shipped.
INSERT INTO setting (key, value, default_value) VALUES
    ('study-command', '', ''),
    ('snooze',        '15m', '15m'),
    ('sound',         '', '');
