-- 0020_waiting_one_offs.sql: the one-offs, found without reading every request ever made.
-- Never edit once shipped.
--
-- A calendar pass reads the one-offs still waiting each time (their items are in the calendar folder), and the
-- request table keeps every slot ever planned (~25 rows a study day): without an index, each pass read a year's
-- rows to find a few one-offs. Partial on `kind` alone, which no UPDATE changes: a state's change (every claim,
-- every open) then has no index to keep, and each process's statements stay as they were.
CREATE INDEX request_oneoff ON request (fire_at_ms) WHERE kind = 'oneoff';
