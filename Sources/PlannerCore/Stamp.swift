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

    /// The stamp of a change made here at `now`, after `latest` (the greatest stamp this device has seen).
    public static func next(after latest: Stamp?, now: Instant, device: String) -> Stamp {
        guard let latest, latest.milliseconds >= now.milliseconds else {
            return Stamp(milliseconds: now.milliseconds, counter: 0, device: device)
        }
        return Stamp(milliseconds: latest.milliseconds, counter: latest.counter + 1, device: device)
    }

    /// `<ms>.<counter>`: the device is a field of its own where stamps travel.
    public var clockText: String { "\(milliseconds).\(counter)" }

    public init?(clockText text: String, device: String) {
        // Digits, one dot, digits: read as bytes (a line from another device; thousands at a time).
        var numbers: [Int64] = [0]
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, numbers.count == 1 else { return nil }
                numbers.append(0)
                digits = 0
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 18 else { return nil }
            numbers[numbers.count - 1] = numbers[numbers.count - 1] * 10 + Int64(byte - UInt8(ascii: "0"))
            digits += 1
        }
        guard numbers.count == 2, digits > 0 else { return nil }
        self.init(milliseconds: numbers[0], counter: numbers[1], device: device)
    }

    public var description: String { "\(clockText)@\(device)" }
}

/// What a last-writer-wins change is about: two changes to the same register, the later stamp wins,
/// whatever order they arrive in. Opens have none: a day opened anywhere is opened (a union).
public enum Register: Hashable, Sendable {
    case setting(SettingKey)
    case skip(LocalDate)
    case pause

    /// The `register` table's name.
    public var name: String {
        switch self {
        case .setting(let key): "setting:" + key.rawValue
        case .skip(let date): "skip:" + date.description
        case .pause: "pause"
        }
    }
}
