-- 0019_measurement_mode.sql: measurement mode (`planner config set experiment on`, docs/nudging.md).
-- Never edit once shipped.
--
-- Each study slot after the day's first is withheld at random (MeasurementMode.swift). A withheld slot is a
-- pending request like the others until its time; then the claim records it `withheld` instead of showing
-- it. Every slot whose time came in measurement mode, shown or withheld, records the chance it had of being
-- withheld (0 for the day's first, which is always shown): the probabilities an estimate weights by.
INSERT INTO request_state (name, ends_slot, meaning) VALUES
    ('withheld', 1, 'its time came in measurement mode (`config set experiment on`) and it was held back at random instead of shown (withhold_probability: the chance it had)');
INSERT INTO request_transition (from_state, to_state) VALUES ('withheld', 'withheld'), ('pending', 'withheld');

ALTER TABLE request ADD COLUMN withhold_probability REAL
    CHECK (withhold_probability IS NULL OR (withhold_probability >= 0 AND withhold_probability < 1));

-- The study slots whose time came in measurement mode, by what the draw assigned them: withheld, or shown
-- (`delivered`, or `failed` or `missed` after its claim: a shown slot dropped for what came after would bias a
-- comparison). Kept this plain on purpose: every process parses the schema, and a view with subqueries cost
-- each command more than a tenth of `status`. `planner stats --nudges` joins them with the opens itself.
CREATE VIEW measured_reminders AS
SELECT identifier, local_date, local_time, fire_at_ms, state, state <> 'withheld' AS shown, withhold_probability
FROM request
WHERE kind = 'slot' AND withhold_probability IS NOT NULL AND state IN ('delivered', 'withheld', 'failed', 'missed');
