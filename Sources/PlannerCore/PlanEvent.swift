/// A change to the plan that a person or another program caused: an open (login, `study`, an answer), a
/// skip and its removal, a pause and a resume, a snooze, a one-off added, a settings change. Every such change is one of these,
/// recorded as a row of the `event` table and applied by `decideEvent`; applying one twice changes nothing
/// (its `id` is already recorded).
public struct PlanEvent: Equatable, Sendable {
    /// Unique across every device and process: 32 hex digits of randomness (`newID`).
    public var id: String
    /// When it happened: it is applied at this instant, however late it arrives.
    public var at: Instant
    /// Where it came from: the command or program that made it (`open`, `study`, `answer`, `config`…).
    public var origin: String
    public var change: PlanChange
    /// Its place among changes to the same thing on every device (last writer wins); nil for a change made
    /// here, stamped by the transaction that applies it.
    public var stamp: Stamp?

    public init(id: String, at: Instant, origin: String, change: PlanChange, stamp: Stamp? = nil) {
        self.id = id
        self.at = at
        self.origin = origin
        self.change = change
        self.stamp = stamp
    }

    /// The origin of a device's claim of the plan's zone (a `settings` event setting `zone`): made once,
    /// when a device first shares, from the zone its plan was made in. The earliest claim is the plan's
    /// zone on every device until someone sets one (`SharedZone`).
    public static let planZoneOrigin = "plan-zone"

    public var isPlanZoneClaim: Bool {
        guard origin == Self.planZoneOrigin, case .settings(let set, let reset) = change else { return false }
        return reset.isEmpty && set.count == 1 && set[0].key == .zone
    }

    /// A device's id (and an event's made here): 32 lowercase hex digits.
    public static func isDeviceID(_ text: String) -> Bool {
        text.utf8.count == 32 && Self.allBytes(of: text) { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether every byte of `text` passes `test`, over its contiguous UTF-8 where it has one (a native
    /// string: every line read from another device is checked so, thousands at a time).
    static func allBytes(of text: String, _ test: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where !test(byte) { return false }
            return true
        } ?? text.utf8.allSatisfy(test)
    }

    /// A new random id. The generator is the caller's (the system's at the edges, a seeded one in tests).
    public static func newID<G: RandomNumberGenerator>(using generator: inout G) -> String {
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(high) + hex(low)
    }
}

/// What an event changes. A new kind of change is one case here, its fields in `PlanEventText` and one
/// branch in `decideEvent`.
public enum PlanChange: Equatable, Sendable {
    /// "The app opened": the rest of that day's study reminders are cancelled. `zoneName` and
    /// `offsetSeconds` are where it was taken (a record; the day is the plan's); `graceMilliseconds` a
    /// `--grace` given for this run, else the plan's setting.
    case open(zoneName: String, offsetSeconds: Int, graceMilliseconds: Int64?)
    case skip(dates: [LocalDate], reason: String?)
    case unskip(dates: [LocalDate])
    /// From the event's instant until `until` (nil: until a resume); replaces a pause in force.
    case pause(until: Instant?)
    case resume
    /// A study reminder answered "Snooze": it comes back at `until` as `<identifier>_snoozed`, on every
    /// device (a reminder shown on two screens and snoozed on one is closed on the other), unless its study
    /// day `day` is opened by then.
    case snooze(identifier: String, day: LocalDate, until: Instant)
    /// `planner add`: a one-off request `identifier` at `fireAt`, on every device (one added on the laptop
    /// rings on the desktop too). The same identifier replaces a waiting one; of two adds of one identifier
    /// the later stamp wins everywhere (`Register.oneOff`). Its identifier is final: `add` makes it unique on
    /// the device it was made on.
    case add(identifier: String, fireAt: Instant, title: String, body: String)
    /// Canonical values (already checked by `SettingKey.canonical`) and keys back to their defaults.
    case settings(set: [SettingChange], reset: [SettingKey])

    /// The word the `event` table and the inbox files use for a change. Reading a line switches over these
    /// (no `default:`), so a new kind of change cannot be written without being read back.
    public enum Kind: String, CaseIterable, Sendable {
        case open, skip, unskip, pause, resume, snooze, add, settings
    }

    public var kind: Kind {
        switch self {
        case .open: .open
        case .skip: .skip
        case .unskip: .unskip
        case .pause: .pause
        case .resume: .resume
        case .snooze: .snooze
        case .add: .add
        case .settings: .settings
        }
    }
}

public struct SettingChange: Equatable, Sendable {
    public var key: SettingKey
    public var value: String

    public init(_ key: SettingKey, _ value: String) {
        self.key = key
        self.value = value
    }
}
