/// Opens read from a record that every computer reads alike: a review in Anki's collection (each computer
/// reads the one Anki synced there) and a day ticked on the phone (each computer's calendar folder gets the
/// same task). Each such open's id is made from the record, so two computers that read it make one event;
/// which computer read it is no part of it, or the two copies would be "two different contents".
public enum RecordOpens {
    /// The origin of an open read from the phone's tick of a day in the calendar folder.
    public static let calendarOrigin = "calendar"

    /// The device every database records for such an open, whichever computer read it and whichever
    /// computer's line brought it: the same row everywhere (`app_open_events.device` says `anki` or
    /// `calendar`). In the sync folder the line says the device whose file holds it, as every line must.
    static let devices = [AnkiReviews.origin: AnkiReviews.device, calendarOrigin: calendarOrigin]

    /// The stamp of an open read from the phone's tick at `at`: its own instant, counter 0, made by the
    /// calendar, never the reading computer's next stamp (which depends on what else that computer holds:
    /// two computers would make two versions of one event).
    public static func calendarStamp(at: Instant) -> Stamp { Stamp(milliseconds: at.milliseconds, counter: 0, device: calendarOrigin) }

    /// Whether `device` is a record's, not a computer's.
    public static func isRecordDevice(_ device: String?) -> Bool {
        guard let device else { return false }
        return devices.values.contains(device)
    }

    /// The device a database records for `event`: the record's for an open read from one, else the one it
    /// came with.
    public static func recordedDevice(_ event: PlanEvent) -> String {
        if case .open = event.change, let device = devices[event.origin] { return device }
        return event.stamp?.device ?? ""
    }

    /// The stamp that decides an open's study day: an open read from a record is the same event whichever
    /// computer read it, so its device takes no part (a settings change stamped in the same millisecond comes
    /// after it).
    public static func decidingStamp(_ stamp: Stamp, origin: String) -> Stamp {
        devices[origin] != nil ? Stamp(milliseconds: stamp.milliseconds, counter: stamp.counter, device: "") : stamp
    }
}
