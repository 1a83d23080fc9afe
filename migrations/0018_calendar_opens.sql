-- 0018_calendar_opens.sql: a day ticked on the phone is one event whichever computer read it.
-- Never edit once shipped.
--
-- Such an open is now recorded with the device `calendar` (as Anki's with `anki`), stamped at its own instant:
-- before, each computer that read the tick recorded it with its own device and its own next stamp, and each
-- counted the other's copy as "two different contents". The opens recorded before say `calendar` too, and
-- the conflicts they alone caused are forgotten (`status` showed them for ever).
UPDATE event SET device = 'calendar' WHERE origin = 'calendar' AND kind = 'open';
DELETE FROM event_conflict WHERE id IN (SELECT id FROM event WHERE origin = 'calendar' AND kind = 'open');
