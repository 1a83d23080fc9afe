import Foundation
import PlannerHarness
import Testing

/// A reminder reads as it was typed (issue 19 item 14): a title, body or identifier holding a format
/// character that hides or reorders text (a bidi override, a zero-width space) is refused with exit 64, a
/// title with nothing visible too, and so are bytes that are not UTF-8 (Swift would store them as U+FFFD).
/// Real text of every script, emoji sequences included, is stored byte for byte.
@Suite struct InvisibleTextTests {
    /// Where text enters: `config set title|body`, `add --title|--body|--id`.
    enum Place: String, CaseIterable, Sendable {
        case configTitle, configBody, addTitle, addBody, addID

        func args(_ value: String, db: String) -> [String] {
            switch self {
            case .configTitle: ["config", "set", "--db", db, "title", value]
            case .configBody: ["config", "set", "--db", db, "body", value]
            case .addTitle: ["add", "--db", db, "--now", "2026-11-23T12:00", "--in", "1h", "--title", value]
            case .addBody: ["add", "--db", db, "--now", "2026-11-23T12:00", "--in", "1h", "--title", "t", "--body", value]
            case .addID: ["add", "--db", db, "--now", "2026-11-23T12:00", "--in", "1h", "--title", "t", "--id", value]
            }
        }

        /// The stored text, as hex of its UTF-8 bytes.
        var storedHex: String {
            switch self {
            case .configTitle: "SELECT hex(value) FROM settings WHERE key = 'title'"
            case .configBody: "SELECT hex(value) FROM settings WHERE key = 'body'"
            case .addTitle: "SELECT hex(title) FROM request WHERE kind = 'oneoff'"
            case .addBody: "SELECT hex(body) FROM request WHERE kind = 'oneoff'"
            case .addID: "SELECT hex(identifier) FROM request WHERE kind = 'oneoff'"
            }
        }
    }

    /// Each with the code point the error must name.
    static let hidingText: [(String, String)] = [
        ("invoice\u{202E}fdp.exe", "U+202E"),  // RIGHT-TO-LEFT OVERRIDE: reads "invoiceexe.pdf"
        ("\u{2067}abc\u{2069} def", "U+2067"),  // RIGHT-TO-LEFT ISOLATE … POP DIRECTIONAL ISOLATE
        ("a\u{202A}b\u{202C}", "U+202A"),  // LEFT-TO-RIGHT EMBEDDING
        ("pay\u{200B}pal", "U+200B"),  // ZERO WIDTH SPACE
        ("\u{FEFF}study", "U+FEFF"),  // BYTE ORDER MARK
        ("a\u{2060}b", "U+2060"),  // WORD JOINER
        ("\u{200D}x", "U+200D"),  // a ZERO WIDTH JOINER with nothing before it
        ("x\u{E0067}y", "U+E0067"),  // a tag character outside an emoji's tag sequence
    ]

    static let realText = [
        "오늘 공부 시작?", "日本語の勉強を始めましょう",
        "\u{1F469}\u{200D}\u{1F4BB} study",  // 👩‍💻: ZERO WIDTH JOINER between two emoji
        "\u{2764}\u{FE0F}\u{200D}\u{1F525} focus",  // ❤️‍🔥: after a variation selector
        "\u{1F468}\u{1F3FD}\u{200D}\u{1F3EB} lesson",  // 👨🏽‍🏫: after a skin tone
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}",
        "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F} G\u{E0}idhlig",  // the flag of Scotland: tags
        "\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645} \u{62F}\u{631}\u{633}",  // Persian: ZWNJ inside a word
        "\u{5E9}\u{5DC}\u{5D5}\u{5DD}\u{200F}! Hello",  // Hebrew, RIGHT-TO-LEFT MARK before "!"
        "\u{915}\u{94D}\u{200D}\u{937} and \u{DC1}\u{DCA}\u{200D}\u{DBB}\u{DD3}",  // Devanagari, Sinhala conjuncts with ZWJ
        "Read \u{6DD}\u{661}\u{662}",  // ARABIC END OF AYAH before its number
        "Silben\u{AD}trennung",  // a soft hyphen
    ]

    func refused(_ h: Harness, _ args: [String], saying: String) throws {
        let before = h.bytes(h.db)
        let r = try h.planner(args)
        #expect(r.status == 64, "\(args.last!.unicodeScalars.map { String($0.value, radix: 16) }): \(r.status) \(r.err)")
        #expect(r.err.hasPrefix("error: ") && r.err.filter { $0 == "\n" }.count == 1 && r.err.contains(saying), "\(r.err)")
        #expect(r.out.isEmpty)
        #expect(h.bytes(h.db) == before, "the database changed")
    }

    func planned() throws -> Harness {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T08:00")
        _ = try h.sqlite("PRAGMA wal_checkpoint(TRUNCATE)")
        return h
    }

    @Test(arguments: Place.allCases)
    func textThatHidesOrReordersIsRefused(_ place: Place) throws {
        let h = try planned()
        for (text, name) in Self.hidingText {
            try refused(h, place.args(text, db: h.db), saying: name)
        }
        // The error shows the character as an escape: it does not reorder the error line itself.
        let r = try h.planner(place.args("invoice\u{202E}fdp.exe", db: h.db))
        #expect(r.err.contains("invoice\\u{202E}fdp.exe") && !r.err.unicodeScalars.contains("\u{202E}"), "\(r.err)")
    }

    @Test(arguments: [Place.configTitle, .addTitle])
    func aTitleWithNothingVisibleIsRefused(_ place: Place) throws {
        let h = try planned()
        for text in ["\u{200B}", " \u{200D} ", "\u{3164}", "\u{115F}\u{1160}", "\u{2800}", "\u{FE0F}", "\u{3000}\u{00A0}"] {
            try refused(h, place.args(text, db: h.db), saying: place == .addTitle ? "--title" : "title")
        }
    }

    @Test(arguments: Place.allCases)
    func realTextIsStoredByteForByte(_ place: Place) throws {
        for text in Self.realText {
            let h = try planned()
            let r = try h.planner(place.args(text, db: h.db))
            #expect(r.status == 0, "\(text): \(r.err)")
            let hex = text.utf8.map { String(format: "%02X", $0) }.joined()
            #expect(try h.sqlite(place.storedHex) == hex, "\(text)")
        }
    }

    /// Bytes that are not UTF-8 (a Latin-1 terminal): refused, not stored as U+FFFD. Given through a shell:
    /// a Swift String cannot hold them.
    @Test(arguments: Place.allCases)
    func bytesThatAreNotUTF8AreRefused(_ place: Place) throws {
        let h = try planned()
        let before = h.bytes(h.db)
        let args = place.args("VALUE", db: h.db).map { $0 == "VALUE" ? "$(printf 'caf\\351')" : "'\($0)'" }
        let r = try h.run("/bin/sh", ["-c", "exec '\(Harness.binary)' " + args.joined(separator: " ")], env: h.env)
        #expect(r.status == 64, "\(r.err)")
        #expect(r.err.hasPrefix("error: ") && r.err.contains("not valid UTF-8") && r.err.filter { $0 == "\n" }.count == 1, "\(r.err)")
        #expect(!r.err.contains("\u{FFFD}"), "\(r.err)")
        #expect(h.bytes(h.db) == before)
    }

    /// The icon and the study command refuse them too: a path or a command line shown reordered is not
    /// what runs.
    @Test(arguments: ["icon", "study-command"])
    func iconAndStudyCommandRefuseHidingText(_ key: String) throws {
        let h = try planned()
        let before = h.bytes(h.db)
        for (text, codePoint) in Self.hidingText {
            let r = try h.planner(["config", "set", "--db", h.db, key, text])
            #expect(r.status == 64, "\(key) \(text): \(r.err)")
            #expect(r.err.contains(codePoint), "\(r.err)")
        }
        #expect(h.bytes(h.db) == before)
    }

    /// An environment variable that names a file, a time or a zone, in bytes that are not UTF-8: refused
    /// (repaired into U+FFFD it named another file, which was created).
    @Test(arguments: ["PLANNER_DB", "PLANNER_NOW", "TZ"])
    func environmentBytesThatAreNotUTF8AreRefused(_ name: String) throws {
        let h = try Harness()
        let value =
            name == "PLANNER_DB"
            ? "\(h.dir)/caf$(printf '\\351').db" : name == "TZ" ? "Europe/Z$(printf '\\351')rich" : "2026-11-23T12:00$(printf '\\351')"
        let db = name == "PLANNER_DB" ? "" : "--db '\(h.db)'"
        let r = try h.run("/bin/sh", ["-c", "\(name)=\"\(value)\" exec '\(Harness.binary)' refill \(db)"], env: h.env)
        #expect(r.status == 64, "\(r.err)")
        #expect(r.err.contains("\(name) is not valid UTF-8"), "\(r.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.dir).filter { !$0.hasPrefix(".") }.isEmpty, "a file was created")
    }

    /// Refused before anything: a database that did not exist is not created.
    @Test func nothingIsCreatedForARefusedValue() throws {
        let h = try Harness()
        for place in Place.allCases {
            _ = try h.planner(place.args("x\u{202E}y", db: h.db))
            let r = try h.run("/bin/sh", ["-c", "exec \"$0\" config set --db \"$1\" title \"$(printf '\\377')\"", Harness.binary, h.db], env: h.env)
            #expect(r.status == 64, "\(r.err)")
        }
        #expect(!FileManager.default.fileExists(atPath: h.db))
    }
}
