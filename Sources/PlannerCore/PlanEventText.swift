/// An event as one line of text: how it travels through an inbox (a file per event in the spool today, a
/// device's log next) and how the `event` table shows what it changed. Readable with `cat`:
///
///     planner-event 2 id=… at=1795396200000 origin=open kind=open zone=Asia/Seoul offset=32400
///
/// Fields are `name=value`; a value's spaces, `%`, control and line-breaking characters are written `%XX`
/// (UTF-8 bytes). A line from outside is untrusted: `PlanEvent(line:)` reads it, `problem` says why a
/// well-formed one must not be applied.
public enum PlanEventText {
    public static let header = "planner-event 2"
    static let headerBytes = Array(header.utf8)
    /// Longer lines are not events (a skip of a year of dates is ~4 KiB).
    public static let maximumLineBytes = 16_384
    static let maximumDates = 1_000

    /// Room a line's head takes at most (header, id, at, origin, kind, device, stamp, and `via` when relayed).
    static let headBytes = 256

    /// Whether an event of `change` fits in one line (`maximumLineBytes`) with any head: what a change read
    /// from the user (a one-off's title and body) must pass before it is made, or no device could read it.
    public static func fitsALine(_ change: PlanChange) -> Bool {
        payloadText(change).utf8.count + headBytes <= maximumLineBytes
    }

    /// The fields after `kind`, in a fixed order: the `event` table's `payload`.
    public static func payload(_ change: PlanChange) -> [(String, String)] {
        var pairs = FieldPairs()
        write(change, to: &pairs)
        return pairs.pairs
    }

    /// `fields(payload(change))`, written as bytes once: every event applied writes its payload (10,000 in a
    /// first sync), and appending to a string piece by piece cost several times as much.
    public static func payloadText(_ change: PlanChange) -> String {
        var text = FieldText()
        write(change, to: &text)
        return text.text
    }

    /// The payload's fields, in order: the one place that says which fields each kind has.
    static func write(_ change: PlanChange, to out: inout some FieldSink) {
        switch change {
        case .open(let zone, let offset, let grace):
            out.field("zone", zone)
            out.field("offset", integer: Int64(offset))
            if let grace { out.field("grace", integer: grace) }
        case .skip(let dates, let reason):
            out.field("dates", dates: dates)
            if let reason { out.field("reason", reason) }
        case .unskip(let dates):
            out.field("dates", dates: dates)
        case .pause(let until):
            if let until { out.field("until", integer: until.milliseconds) }
        case .resume:
            break
        case .snooze(let identifier, let day, let until):
            out.field("identifier", identifier)
            out.field("day", dates: [day])
            out.field("until", integer: until.milliseconds)
        case .add(let identifier, let fireAt, let title, let body):
            out.field("identifier", identifier)
            out.field("fire", integer: fireAt.milliseconds)
            out.field("title", title)
            if !body.isEmpty { out.field("body", body) }
        case .settings(let set, let reset):
            for change in set { out.field("set." + change.key.rawValue, change.value) }
            if !reset.isEmpty { out.field("reset", reset.map(\.rawValue).joined(separator: ",")) }
        }
    }

    public static func fields(_ pairs: [(String, String)]) -> String {
        var text = FieldText()
        for (name, value) in pairs { text.field(name, value) }
        return text.text
    }

    /// The whole line, with its line break.
    public static func line(_ event: PlanEvent) -> String {
        var head: [(String, String)] = [
            ("id", event.id), ("at", String(event.at.milliseconds)), ("origin", event.origin),
            ("kind", event.change.kind.rawValue),
        ]
        // Where devices share events: which device made it and its place among changes (`Stamp`).
        if let stamp = event.stamp { head += [("device", stamp.device), ("stamp", stamp.clockText)] }
        return header + " " + fields(head + payload(event.change)) + "\n"
    }

    static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar.value == 0x7F || scalar == "%" || (0x80...0x9F).contains(scalar.value)
            || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    static func escaped(_ value: String) -> String {
        // Most values are printable ASCII without `%`: nothing to escape (`mustEscape` of each byte).
        if PlanEvent.allBytes(of: value, { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") }) { return value }
        var out = ""
        for scalar in value.unicodeScalars {
            guard mustEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            for byte in String(scalar).utf8 {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// nil: a `%` not followed by two hex digits, bytes that are not UTF-8, or a character that should
    /// have been escaped.
    static func unescaped(_ text: Substring) -> String? { unescaped(Array(text.utf8)[...]) }

    /// The same over bytes: a line from another device is read this way, byte by byte (reading it as
    /// Characters costs ten times as much, and 10,000 events must apply in well under 100 ms).
    static func unescaped(_ utf8: ArraySlice<UInt8>) -> String? {
        guard utf8.contains(UInt8(ascii: "%")) else { return String(validating: utf8, as: UTF8.self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var i = utf8.startIndex
        while i < utf8.endIndex {
            let byte = utf8[i]
            i += 1
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.endIndex - i >= 2, let high = hexValue(utf8[i]), let low = hexValue(utf8[i + 1]) else { return nil }
            bytes.append(high << 4 | low)
            i += 2
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Whether a line that is not an event of this version is one a newer planner wrote: a later version
    /// of the line (`planner-event 3 …`), a kind of change this planner does not know, or a setting it does
    /// not know. Such a line is kept to be read once this planner is upgraded, never refused for good.
    public static func isFromNewerPlanner(_ bytes: ArraySlice<UInt8>) -> Bool {
        let prefix = Array("planner-event ".utf8)
        guard bytes.last == UInt8(ascii: "\n"), bytes.count <= maximumLineBytes, bytes.starts(with: prefix) else { return false }
        let afterPrefix = bytes.dropFirst(prefix.count)
        let digits = afterPrefix.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard (1...9).contains(digits.count), afterPrefix.dropFirst(digits.count).first == UInt8(ascii: " "),
            let version = Int(String(decoding: digits, as: UTF8.self))
        else { return false }
        if version > 2 { return true }
        guard version == 2, let fields = fields(of: afterPrefix.dropFirst(digits.count + 1).dropLast()) else { return false }
        let named = Dictionary(fields, uniquingKeysWith: { a, _ in a })
        guard let kind = named["kind"], isName(kind) else { return false }
        guard let known = PlanChange.Kind(rawValue: kind) else { return true }
        guard known == .settings else { return false }
        // A setting this planner does not know, named as a planner would name one.
        let keys =
            fields.compactMap { $0.0.hasPrefix("set.") ? String($0.0.dropFirst(4)) : nil }
            + (named["reset"].map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? [])
        return keys.allSatisfy(isName) && keys.contains { SettingKey(rawValue: $0) == nil }
    }

    /// A kind's or a setting's name as a planner writes one: a lowercase word with digits and dashes.
    static func isName(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count) && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(text.utf8.first!)
            && text.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "-")
            }
    }

    /// What this planner's reader knows of the line format (its versions, kinds and settings), as a short
    /// digest: a file holding lines from a newer planner is read again once a planner that knows more
    /// (another digest) reads the folder. Made from the declarations, so adding a kind or a setting changes it.
    public static let readerDigest: String = {
        let known = [header, SyncFileText.deviceHeader] + PlanChange.Kind.allCases.map(\.rawValue) + SettingKey.allCases.map(\.rawValue)
        return String(SHA256.hex(known.joined(separator: "\n").utf8).prefix(16))
    }()

    /// `name=value` words separated by single spaces, each name once; nil for anything else.
    public static func fields(of body: ArraySlice<UInt8>) -> [(String, String)]? {
        var fields: [(String, String)] = []
        for word in body.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false) {
            guard let equals = word.firstIndex(of: UInt8(ascii: "=")), equals > word.startIndex,
                let value = unescaped(word[(equals + 1)...])
            else { return nil }
            let name = String(decoding: word[..<equals], as: UTF8.self)
            guard !fields.contains(where: { $0.0 == name }) else { return nil }
            fields.append((name, value))
        }
        return fields
    }
}

extension PlanEvent {
    /// Reads one line (with its line break); nil when it is not an event line of this version.
    public init?(line: String) {
        self.init(bytes: Array(line.utf8)[...])
    }

    /// The same from the line's bytes (with its line break), as a device's file holds them.
    public init?(bytes: ArraySlice<UInt8>) {
        let head = PlanEventText.headerBytes
        guard bytes.last == UInt8(ascii: "\n"), bytes.count <= PlanEventText.maximumLineBytes, bytes.count > head.count + 1,
            bytes.hasBytePrefix(head), bytes[bytes.startIndex + head.count] == UInt8(ascii: " ")
        else { return nil }
        let body = bytes[(bytes.startIndex + head.count + 1)..<(bytes.endIndex - 1)]
        // A first sync reads thousands of lines: their words are found as byte ranges, and only the values the
        // event keeps become strings. A line with a name that is not ASCII is read the general way
        // (`fields(of:)`, whose names compare as Unicode text).
        switch EventWords.scan(body) {
        case .refused: return nil
        case .words(let words): self.init(words: words)
        case .general:
            guard let fields = PlanEventText.fields(of: body) else { return nil }
            self.init(fields: fields)
        }
    }

    /// From a line's words (`EventWords`).
    init?(words: EventWords) {
        guard let settings = words.settings() else { return nil }
        self.init(from: words, settings: settings)
    }

    /// From a line's fields as `PlanEventText.fields(of:)` reads them.
    init?(fields: [(String, String)]) {
        var set: [(String, String)] = []
        for (name, value) in fields where name.hasPrefix("set.") { set.append((String(name.dropFirst(4)), value)) }
        self.init(from: NamedFields(named: Dictionary(uniqueKeysWithValues: fields)), settings: set)
    }

    /// The event the named values make; `settings`: the `set.` fields in the line's order, their names without
    /// `set.`.
    private init?(from fields: some EventFields, settings: [(String, String)]) {
        typealias Name = EventWords.Name
        let take = fields.text
        guard let id = take(Name.id), case .some(.some(let at)) = fields.integer(Name.at), let origin = take(Name.origin),
            case .some(.some(let kind)) = fields.kind()
        else { return nil }
        var stamp: Stamp?
        switch (take(Name.device), fields.clock()) {
        case (nil, nil): break
        case (let device?, let clock?):
            guard let clock else { return nil }
            stamp = Stamp(milliseconds: clock.milliseconds, counter: clock.counter, device: device)
        default: return nil
        }
        func dates(_ text: String?) -> [LocalDate]? {
            guard let text else { return nil }
            // Split at the comma's byte, not as Characters (grapheme breaking is most of a date's cost): a
            // comma joined to a combining mark, the only difference, leaves a part that is no date either way.
            let parts = text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard parts.count <= PlanEventText.maximumDates else { return nil }
            var dates: [LocalDate] = []
            dates.reserveCapacity(parts.count)
            for part in parts {
                guard let date = LocalDate(iso: String(decoding: part, as: UTF8.self)) else { return nil }
                dates.append(date)
            }
            return dates
        }
        let change: PlanChange
        switch kind {
        case .open:
            guard let zone = take(Name.zone), case .some(.some(let offset)) = fields.integer(Name.offset) else { return nil }
            var grace: Int64?
            if let value = fields.integer(Name.grace) {
                guard let value else { return nil }
                grace = value
            }
            change = .open(zoneName: zone, offsetSeconds: Int(offset), graceMilliseconds: grace)
        case .skip:
            guard let list = dates(take(Name.dates)) else { return nil }
            change = .skip(dates: list, reason: take(Name.reason))
        case .unskip:
            guard let list = dates(take(Name.dates)) else { return nil }
            change = .unskip(dates: list)
        case .pause:
            var until: Instant?
            if let value = fields.integer(Name.until) {
                guard let ms = value else { return nil }
                until = Instant(milliseconds: ms)
            }
            change = .pause(until: until)
        case .resume:
            change = .resume
        case .snooze:
            guard let identifier = take(Name.identifier), let day = take(Name.day).flatMap({ LocalDate(iso: $0) }),
                case .some(.some(let until)) = fields.integer(Name.until)
            else { return nil }
            change = .snooze(identifier: identifier, day: day, until: Instant(milliseconds: until))
        case .add:
            guard let identifier = take(Name.identifier), case .some(.some(let fire)) = fields.integer(Name.fire),
                let title = take(Name.title)
            else { return nil }
            change = .add(identifier: identifier, fireAt: Instant(milliseconds: fire), title: title, body: take(Name.body) ?? "")
        case .settings:
            var set: [SettingChange] = []
            for (name, value) in settings {
                guard let key = SettingKey(rawValue: name) else { return nil }
                set.append(SettingChange(key, value))
            }
            var reset: [SettingKey] = []
            if let text = take(Name.reset) {
                for word in text.split(separator: ",", omittingEmptySubsequences: false) {
                    guard let key = SettingKey(rawValue: String(word)) else { return nil }
                    reset.append(key)
                }
            }
            change = .settings(set: set, reset: reset)
        }
        // A field this version does not know is a newer planner's addition to a known kind: the format's
        // rule (docs/sync.md) is that such a field only adds, so the event means the same without it.
        self.init(id: id, at: Instant(milliseconds: at), origin: origin, change: change, stamp: stamp)
    }

    /// The instants of `supportedYears` (in UTC) an event's may be, as milliseconds: one comparison for each of
    /// the 10,000 events of a first sync, instead of a calendar date each.
    static let supportedMilliseconds: Range<Int64> = {
        func start(of year: Int) -> Int64 {
            LocalDateTime(date: LocalDate(year: year, month: 1, day: 1), hour: 0, minute: 0).epochMillisecondsAsIfUTC
        }
        return max(0, start(of: supportedYears.lowerBound))..<start(of: supportedYears.upperBound + 1)
    }()

    /// Why a well-formed event from outside must not be applied, or nil. Like `--now`, nothing outside
    /// what the planner's commands could have made is applied: one bad line cannot make a writer fail.
    public var problem: String? {
        func isWord(_ text: String, first: ClosedRange<UInt8>, length: ClosedRange<Int>) -> Bool {
            guard length.contains(text.utf8.count), let head = text.utf8.first, first.contains(head) else { return false }
            return PlanEvent.allBytes(of: text) {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "-")
            }
        }
        guard isWord(id, first: UInt8(ascii: "0")...UInt8(ascii: "z"), length: 8...64) else { return "its id is not one" }
        guard isWord(origin, first: UInt8(ascii: "a")...UInt8(ascii: "z"), length: 1...32) else { return "its origin is not one" }
        func outOfRange(_ instant: Instant) -> Bool { !PlanEvent.supportedMilliseconds.contains(instant.milliseconds) }
        guard !outOfRange(at) else { return "its time is outside the years \(supportedYears.lowerBound)-\(supportedYears.upperBound)" }
        if let stamp {
            guard PlanEvent.isDeviceID(stamp.device) else { return "its device is not a device id" }
            guard stamp.milliseconds >= 0, !outOfRange(Instant(milliseconds: stamp.milliseconds)), stamp.counter >= 0,
                stamp.counter < 1 << 32
            else { return "its stamp is out of range" }
        }
        if origin == PlanEvent.planZoneOrigin, !isPlanZoneClaim { return "a claim of the plan's zone that is not one" }
        switch change {
        case .open(let zone, let offset, let grace):
            guard abs(offset) <= 26 * 3600 else { return "its UTC offset is not one any zone has" }
            guard grace.map({ (0...366 * 86_400_000).contains($0) }) ?? true else { return "its grace period is out of range" }
            guard !zone.isEmpty, zone.utf8.count <= 255, !TerminalText.containsControl(zone) else { return "its zone name is not one" }
        case .skip(let dates, let reason):
            guard !dates.isEmpty, dates.allSatisfy({ supportedYears.contains($0.year) }) else { return "its dates are not ones" }
            if let reason, let why = SettingKey.body.problem(reason) { return "its reason is not one (\(why))" }
        case .unskip(let dates):
            guard !dates.isEmpty, dates.allSatisfy({ supportedYears.contains($0.year) }) else { return "its dates are not ones" }
        case .pause(let until):
            if let until, outOfRange(until) || until <= at { return "it ends before it starts" }
        case .resume:
            break
        case .snooze(let identifier, let day, let until):
            // Only a study reminder is answered, and a snooze is at most a day (the `snooze` setting's limit).
            guard identifier.hasPrefix(SlotIdentifier.prefix), identifier.utf8.count <= 200,
                identifier.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F })
            else { return "its reminder is not a study reminder" }
            guard supportedYears.contains(day.year), until > at, until.milliseconds - at.milliseconds <= 86_400_000 else {
                return "its snooze is out of range"
            }
        case .add(let identifier, let fireAt, let title, let body):
            // What `planner add` accepts, and a time after the add within the supported years.
            if let why = RequestText.identifierProblem(identifier) ?? RequestText.titleProblem(title) ?? RequestText.bodyProblem(body) {
                return "its one-off is not one `planner add` makes (\(why))"
            }
            guard fireAt > at, !outOfRange(fireAt) else { return "its one-off's time is out of range" }
        case .settings(let set, let reset):
            guard !set.isEmpty || !reset.isEmpty else { return "it changes nothing" }
            for change in set {
                // Only the canonical text `config set` stores: anything else was not written by a planner.
                guard (try? change.key.canonical(change.value)) == change.value else {
                    return "its value for \(change.key.rawValue) is not one the planner accepts"
                }
            }
        }
        return nil
    }
}

/// Where `PlanEventText.write` puts a payload's fields.
protocol FieldSink {
    mutating func field(_ name: String, _ value: String)
    mutating func field(_ name: String, integer: Int64)
    mutating func field(_ name: String, dates: [LocalDate])
}

/// The fields as pairs of texts.
struct FieldPairs: FieldSink {
    var pairs: [(String, String)] = []
    mutating func field(_ name: String, _ value: String) { pairs.append((name, value)) }
    mutating func field(_ name: String, integer: Int64) { pairs.append((name, String(integer))) }
    mutating func field(_ name: String, dates: [LocalDate]) { pairs.append((name, dates.map(\.description).joined(separator: ","))) }
}

/// The fields as one line's text, `name=value` separated by spaces, each value escaped.
struct FieldText: FieldSink {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(96) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func name(_ name: String) {
        if !bytes.isEmpty { bytes.append(UInt8(ascii: " ")) }
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: "="))
    }

    mutating func field(_ name: String, _ value: String) {
        self.name(name)
        bytes.append(contentsOf: PlanEventText.escaped(value).utf8)
    }

    mutating func field(_ name: String, integer: Int64) {
        self.name(name)
        // Digits from the lowest, then reversed in place: no string made.
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var rest = integer.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    mutating func field(_ name: String, dates: [LocalDate]) {
        self.name(name)
        for (index, date) in dates.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: date.description.utf8)
        }
    }
}
