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

-- The decision points of measurement mode: each study slot whose time came in it while its study day was
-- not yet started, counted by what the draw assigned it: withheld, or shown (`delivered`, or `failed` or
-- `missed` after its claim: a shown slot dropped for what came after would bias the comparison).
-- `started_within_60m`: the day's first open came within 60 minutes after the slot's time (the outcome the
-- trials measured); `shown_before`: study reminders this device showed earlier that study day.
-- `planner stats --nudges` estimates from the same rows.
CREATE VIEW nudge_decisions AS
SELECT r.identifier, r.local_date, r.local_time, r.fire_at_ms, r.state, r.state <> 'withheld' AS shown, r.withhold_probability,
       (SELECT count(*) FROM request d
        WHERE d.local_date = r.local_date AND d.kind = 'slot' AND d.state = 'delivered' AND d.fire_at_ms < r.fire_at_ms) AS shown_before,
       o.first_open_ms,
       coalesce(o.first_open_ms <= r.fire_at_ms + 3600000, 0) AS started_within_60m
FROM request r
LEFT JOIN (SELECT local_date, min(opened_at_ms) AS first_open_ms FROM app_open GROUP BY local_date) o ON o.local_date = r.local_date
WHERE r.kind = 'slot' AND r.withhold_probability IS NOT NULL AND r.state IN ('delivered', 'withheld', 'failed', 'missed')
  AND (o.first_open_ms IS NULL OR o.first_open_ms > r.fire_at_ms);
