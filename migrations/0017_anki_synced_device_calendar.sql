-- 0017_anki_synced_device_calendar.sql: how fresh Anki's collection is, and which devices carry a calendar.
-- Never edit once shipped.
--
-- Anki's own last sync of the collection (its `col.ls`, epoch milliseconds; 0: never synced) as the last read
-- found it: a review made on the phone reaches this computer only when Anki here syncs, and `status` says
-- when that last happened.
ALTER TABLE anki_read ADD COLUMN synced_ms INTEGER;

-- What a device last said of its calendar folder in its device line (`calendar=1`: it writes one; 0: it does
-- not; NULL: it never said, a planner before 0.2.0). `setup --uninstall` leaves the server's items alone
-- while another device carries the calendar. For this device: what its file last said.
ALTER TABLE device ADD COLUMN calendar INTEGER CHECK (calendar IN (0, 1));
