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
        public static let day = Array("day".utf8), reset = Array("reset".utf8)
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

    /// `scan` with the body's bytes at `line` (index `body.startIndex` at 0): no bounds checked per byte.
    private static func scan(_ body: ArraySlice<UInt8>, _ line: UnsafeBufferPointer<UInt8>) -> Scan {
        var scanned = EventWords(bytes: body)
        scanned.words.reserveCapacity(12)
        scanned.plain.reserveCapacity(12)
        let base = body.startIndex
        var start = body.startIndex
        while true {
            var end = start
            var equals = -1
            var ascii = true
            var escaped = false
            while end < body.endIndex {
                let byte = line[end - base]
                if byte == UInt8(ascii: " ") { break }
                if byte == UInt8(ascii: "="), equals < 0 {
                    equals = end
                } else if byte >= 0x80 {
                    if equals < 0 { return .general }
                    ascii = false
                } else if byte == UInt8(ascii: "%"), equals >= 0 {
                    escaped = true
                }
                end += 1
            }
            guard equals > start else { return .refused }
            let value = (equals + 1)..<end
            if !ascii || escaped {
                guard PlanEventText.unescaped(body[value]) != nil else { return .refused }
            }
            let name = start..<equals
            for other in scanned.words where other.name.count == name.count && body[other.name].elementsEqual(body[name]) {
                return .refused
            }
            scanned.words.append((name, value))
            scanned.plain.append(ascii && !escaped)
            guard end < body.endIndex else { break }
            start = end + 1
        }
        return .words(scanned)
    }

    /// The value of the word named `name`, unescaped; nil when there is none.
    public func value(_ name: [UInt8]) -> String? {
        // Compared through buffer pointers (a generic slice comparison cost ~400 instructions a lookup, 8 a line).
        let found: Int? = bytes.withUnsafeBufferPointer { line in
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
        return found.flatMap(text)
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
