-- 0005_study_settings.sql: answering a reminder. `study-command` is what `planner study` runs after it
-- records the open (empty: nothing); `snooze` is how long "Snooze" puts a reminder off; `sound` is the
-- sound a desktop notification asks the server to play (a freedesktop sound name; empty: none); the
-- icon's default becomes the planner's own.
-- Never edit once shipped.
INSERT INTO setting (key, value, default_value) VALUES
    ('study-command', '', ''),
    ('snooze',        '15m', '15m'),
    ('sound',         '', '');

-- The planner's own icon (installed by `planner setup` and the package) by default: dunst finds no
-- `appointment-soon`. A plan still on the old default follows; a chosen icon is kept.
UPDATE setting SET default_value = 'planner',
                   value = CASE value WHEN 'appointment-soon' THEN 'planner' ELSE value END
WHERE key = 'icon';
