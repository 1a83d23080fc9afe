/// A hybrid logical clock reading: which of two changes to the same thing (a setting, a date's skip, the
/// pause) came last, agreed by every device. The physical part is a wall clock in milliseconds, but it never
/// goes back below a reading already seen (from this device or another), so a device whose clock is hours
/// behind still stamps its next change after everything it has received. Ties break on the counter, then on
/// the device id: two devices never compare equal.
public struct Stamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64
    public var counter: Int64
    /// The device that made it ("" for changes made before this device had an id).
    public var device: String

    public init(milliseconds: Int64, counter: Int64 = 0, device: String = "") {
        self.milliseconds = milliseconds
        self.counter = counter
        self.device = device
    }

    public static func < (a: Stamp, b: Stamp) -> Bool {
        (a.milliseconds, a.counter, a.device) < (b.milliseconds, b.counter, b.device)
    }

    /// How far ahead of this device's clock a stamp may be for the clock to adopt it (the hybrid logical
    /// clock paper's ε): half the day a reader accepts (`SyncFileText.maximumAheadMilliseconds`), so a device
    /// never publishes a stamp that a peer whose clock is within 12 hours of its own would have to wait on,
    /// and a change made after seeing another still comes after it when the clocks are up to 12 hours apart.
    /// A stamp further ahead (a peer's clock a day fast, an inbox file dated 2030, a
    /// `--now` months ahead) still takes its place among changes, but this device's later changes do not
    /// inherit its lead: one clock ahead can never make every later change of a device carry that lead.
    public static let maximumLeadMilliseconds: Int64 = 12 * 3_600_000
    /// The largest counter a stamp may carry (lines with a larger one are refused by every reader).
    public static let maximumCounter: Int64 = (1 << 32) - 1

    /// The physical part of this device's clock for a change at `at`: `at`, but never further ahead of
    /// the real clock `real` than `maximumLeadMilliseconds` (a `--now` in the future moves when a change
    /// happened, not the clock every later change is stamped by).
    public static func clock(at: Instant, real: Instant) -> Int64 {
        min(at.milliseconds, real.milliseconds + maximumLeadMilliseconds)
    }

    /// The stamp of a change made here when the clock reads `clock` (milliseconds), after `latest` (the
    /// greatest stamp this device has seen that is not more than `maximumLeadMilliseconds` ahead of
    /// `clock`: the caller leaves further ones out). A counter at its limit moves to the next millisecond.
    public static func next(after latest: Stamp?, clock: Int64, device: String) -> Stamp {
        guard let latest, latest.milliseconds >= clock else {
            return Stamp(milliseconds: clock, counter: 0, device: device)
        }
        if latest.counter >= maximumCounter { return Stamp(milliseconds: latest.milliseconds + 1, counter: 0, device: device) }
        return Stamp(milliseconds: latest.milliseconds, counter: latest.counter + 1, device: device)
    }

    /// The stamp of a change made here at `now`, after `latest` (tests; the store bounds `latest` first).
    public static func next(after latest: Stamp?, now: Instant, device: String) -> Stamp {
        next(after: latest, clock: now.milliseconds, device: device)
    }

    /// `<ms>.<counter>`: the device is a field of its own where stamps travel.
    public var clockText: String { "\(milliseconds).\(counter)" }

    public init?(clockText text: String, device: String) {
        // Digits, one dot, digits: read as bytes (a line from another device; thousands at a time), into two
        // numbers (no array made).
        var text = text
        guard let clock = text.withUTF8(EventWords.clock) else { return nil }
        self.init(milliseconds: clock.milliseconds, counter: clock.counter, device: device)
    }

    public var description: String { "\(clockText)@\(device)" }
}

/// What a last-writer-wins change is about: two changes to the same register, the later stamp wins,
/// whatever order they arrive in. Opens have none: a day opened anywhere is opened (a union).
public enum Register: Hashable, Sendable {
    case setting(SettingKey)
    case skip(LocalDate)
    case pause
    /// The plan's shared zone when nobody set one: the first device's (the earliest claim wins).
    case planZone
    /// A one-off's identifier (`PlanChange.add`): the latest add of it is the one waiting on every device.
    case oneOff(String)

    /// The `register` table's name.
    public var name: String {
        switch self {
        case .setting(let key): "setting:" + key.rawValue
        case .skip(let date): "skip:" + date.description
        case .pause: "pause"
        case .planZone: "plan-zone"
        case .oneOff(let identifier): "one-off:" + identifier
        }
    }
}
