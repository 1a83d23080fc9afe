/// An event line's `name=value` words as byte ranges, found in one pass over the line (`PlanEvent(bytes:)`): a
/// first sync applies thousands of another device's lines, and splitting each into strings, checking each name
/// against the others as text and hashing them into a dictionary cost more than applying the events. It
/// refuses exactly what `PlanEventText.fields(of:)` refuses; a name that is not ASCII (which that reader
/// compares as Unicode text) sends the line to it (`general`). EventWordsTests holds the two readers equal.
public struct EventWords {
    /// The names `PlanEvent(bytes:)` asks for, as bytes.
    public enum Name {
        public static let id = Array("id".utf8), at = Array("at".utf8), origin = Array("origin".utf8), kind = Array("kind".utf8)
        public static let device = Array("device".utf8), stamp = Array("stamp".utf8), zone = Array("zone".utf8)
        public static let offset = Array("offset".utf8), grace = Array("grace".utf8), dates = Array("dates".utf8)
        public static let reason = Array("reason".utf8), until = Array("until".utf8), identifier = Array("identifier".utf8)
        public static let day = Array("day".utf8), reset = Array("reset".utf8), fire = Array("fire".utf8)
        public static let title = Array("title".utf8), body = Array("body".utf8)
        static let settingPrefix = Array("set.".utf8)
    }

    public enum Scan {
        case words(EventWords)
        /// Not a line of words (`fields(of:)` would say nil).
        case refused
        /// A name that is not ASCII: read by `fields(of:)`.
        case general
    }

    let bytes: ArraySlice<UInt8>
    /// Each word's name (before its first `=`) and value (after it), as indices of `bytes`.
    var words: [(name: Range<Int>, value: Range<Int>)] = []
    /// Whether a value is ASCII without `%`: its bytes are its text.
    var plain: [Bool] = []

    /// The words of `body`: single spaces between them, each `name=value` with a name, each value a valid
    /// escaped text, no name twice.
    public static func scan(_ body: ArraySlice<UInt8>) -> Scan {
        body.withUnsafeBufferPointer { scan(body, $0) }
    }

    /// The bytes below 64 a word's loop stops at (space, `%`, `=`); every byte from 0x80 stops it too. The
    /// others, nearly all of a line, are passed over with one test each.
    private static let stopsBelow64: UInt64 = 1 << 0x20 | 1 << 0x25 | 1 << 0x3D

    /// `scan` with the body's bytes at `line` (index `body.startIndex` at 0): no bounds checked per byte.
    private static func scan(_ body: ArraySlice<UInt8>, _ line: UnsafeBufferPointer<UInt8>) -> Scan {
        var scanned = EventWords(bytes: body)
        scanned.words.reserveCapacity(12)
        scanned.plain.reserveCapacity(12)
        let base = body.startIndex
        let count = line.count
        var start = 0
        while true {
            var end = start
            var equals = -1
            var ascii = true
            var escaped = false
            while end < count {
                let byte = line[end]
                if byte < 64 {
                    if stopsBelow64 & (1 << UInt64(byte)) == 0 {
                        end += 1
                        continue
                    }
                    if byte == UInt8(ascii: " ") { break }
                    if byte == UInt8(ascii: "="), equals < 0 {
                        equals = end
                    } else if byte == UInt8(ascii: "%"), equals >= 0 {
                        escaped = true
                    }
                } else if byte >= 0x80 {
                    if equals < 0 { return .general }
                    ascii = false
                }
                end += 1
            }
            guard equals > start else { return .refused }
            let value = (base + equals + 1)..<(base + end)
            if !ascii || escaped {
                guard PlanEventText.unescaped(body[value]) != nil else { return .refused }
            }
            let name = (base + start)..<(base + equals)
            for other in scanned.words where other.name.count == name.count {
                var same = true
                for offset in 0..<name.count where line[other.name.lowerBound - base + offset] != line[start + offset] {
                    same = false
                    break
                }
                if same { return .refused }
            }
            scanned.words.append((name, value))
            scanned.plain.append(ascii && !escaped)
            guard end < count else { break }
            start = end + 1
        }
        return .words(scanned)
    }

    /// The value of the word named `name`, unescaped; nil when there is none.
    public func value(_ name: [UInt8]) -> String? { index(of: name).flatMap(text) }

    /// The index of the word named `name`.
    private func index(of name: [UInt8]) -> Int? {
        // Compared through buffer pointers (a generic slice comparison cost ~400 instructions a lookup, 8 a line).
        bytes.withUnsafeBufferPointer { line in
            name.withUnsafeBufferPointer { wanted in
                let base = bytes.startIndex
                next: for index in words.indices where words[index].name.count == wanted.count {
                    let start = words[index].name.lowerBound - base
                    for offset in 0..<wanted.count where line[start + offset] != wanted[offset] { continue next }
                    return index
                }
                return nil
            }
        }
    }

    /// The `set.` words in the line's order: their names without `set.`, and their values; nil when a value
    /// cannot be read (never, once scanned).
    public func settings() -> [(String, String)]? {
        var found: [(String, String)] = []
        for (index, word) in words.enumerated()
        where word.name.count >= Name.settingPrefix.count && bytes[word.name].starts(with: Name.settingPrefix) {
            guard let value = text(index) else { return nil }
            found.append((String(decoding: bytes[(word.name.lowerBound + Name.settingPrefix.count)..<word.name.upperBound], as: UTF8.self), value))
        }
        return found
    }

    private func text(_ index: Int) -> String? {
        let range = words[index].value
        return plain[index] ? String(decoding: bytes[range], as: UTF8.self) : PlanEventText.unescaped(bytes[range])
    }
}

/// The named values of an event line, however it was read: `PlanEvent(from:settings:)` asks them.
protocol EventFields {
    /// The field's text, unescaped; nil when there is none.
    func text(_ name: [UInt8]) -> String?
    /// The field read as `Int64(_: String)` reads a text: nil when there is none, `.some(nil)` when it is no number.
    func integer(_ name: [UInt8]) -> Int64??
    /// The `kind` field: nil when there is none, `.some(nil)` when it names no kind.
    func kind() -> PlanChange.Kind??
    /// The `stamp` field, `<ms>.<counter>` (`Stamp(clockText:device:)`): nil when there is none, `.some(nil)`
    /// when it is not one.
    func clock() -> (milliseconds: Int64, counter: Int64)??
}

extension EventFields {
    func integer(_ name: [UInt8]) -> Int64?? { text(name).map { Int64($0) } }
    func kind() -> PlanChange.Kind?? { text(EventWords.Name.kind).map { PlanChange.Kind(rawValue: $0) } }
    func clock() -> (milliseconds: Int64, counter: Int64)?? {
        text(EventWords.Name.stamp).map { text in
            Stamp(clockText: text, device: "").map { ($0.milliseconds, $0.counter) }
        }
    }
}

/// The fields as `PlanEventText.fields(of:)` reads them (a line whose names are not all ASCII).
struct NamedFields: EventFields {
    let named: [String: String]
    func text(_ name: [UInt8]) -> String? { named[String(decoding: name, as: UTF8.self)] }
}

/// A first sync reads 10,000 lines: a plain value (ASCII without `%`) that is a number, a kind or a stamp is
/// read from its bytes, with no string made.
extension EventWords: EventFields {
    func text(_ name: [UInt8]) -> String? { value(name) }

    /// Each kind's name as bytes.
    private static let kinds = PlanChange.Kind.allCases.map { ($0, Array($0.rawValue.utf8)) }

    /// `body` runs `read` over a plain value's bytes; nil when there is no such word, `text` when it is not plain.
    private func plainBytes<T>(_ name: [UInt8], _ read: (UnsafeBufferPointer<UInt8>) -> T, else text: (String) -> T) -> T? {
        guard let index = index(of: name) else { return nil }
        guard plain[index] else { return self.text(index).map(text) }
        let range = words[index].value
        return bytes.withUnsafeBufferPointer { line in
            read(UnsafeBufferPointer(rebasing: line[(range.lowerBound - bytes.startIndex)..<(range.upperBound - bytes.startIndex)]))
        }
    }

    func integer(_ name: [UInt8]) -> Int64?? {
        plainBytes(name, EventWords.int64, else: { Int64($0) })
    }

    func kind() -> PlanChange.Kind?? {
        plainBytes(
            Name.kind,
            { value in
                EventWords.kinds.first { $0.1.count == value.count && $0.1.elementsEqual(value) }?.0
            }, else: { PlanChange.Kind(rawValue: $0) })
    }

    func clock() -> (milliseconds: Int64, counter: Int64)?? {
        plainBytes(Name.stamp, EventWords.clock, else: { text in Stamp(clockText: text, device: "").map { ($0.milliseconds, $0.counter) } })
    }

    /// What `Int64(_: String)` makes of these ASCII bytes: an optional sign, then decimal digits, in range.
    static func int64(_ value: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        var negative = false
        if let first = value.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        guard index < value.count else { return nil }
        var result: Int64 = 0
        while index < value.count {
            let digit = value[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, over) = result.multipliedReportingOverflow(by: 10)
            // Summed as a negative number when negative: Int64.min has no positive counterpart.
            let (next, overAgain) = negative ? shifted.subtractingReportingOverflow(Int64(digit)) : shifted.addingReportingOverflow(Int64(digit))
            guard !over, !overAgain else { return nil }
            result = next
            index += 1
        }
        return result
    }

    /// What `Stamp(clockText:device:)` makes of these ASCII bytes.
    static func clock(_ value: UnsafeBufferPointer<UInt8>) -> (milliseconds: Int64, counter: Int64)? {
        var first: Int64 = 0
        var second: Int64 = 0
        var dotted = false
        var digits = 0
        for byte in value {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, !dotted else { return nil }
                dotted = true
                digits = 0
                continue
            }
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10, digits < 18 else { return nil }
            if dotted { second = second * 10 + Int64(digit) } else { first = first * 10 + Int64(digit) }
            digits += 1
        }
        guard dotted, digits > 0 else { return nil }
        return (first, second)
    }
}
