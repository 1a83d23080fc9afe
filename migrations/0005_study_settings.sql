-- 0005_study_settings.sql: answering a reminder. `study-command` is what `planner study` runs after it
-- records the open (empty: nothing); `snooze` is how long "Snooze" puts a reminder off.
-- Never edit once shipped.
INSERT INTO setting (key, value, default_value) VALUES
    ('study-command', '', ''),
    ('snooze',        '15m', '15m');
