import Testing

@testable import PlannerCore

/// Text from users and files, and arithmetic on instants from them: nothing breaks a line, nothing traps.
@Suite struct HostileTextTests {
    /// Every scalar that breaks a line or drives a terminal, including CR-LF (one Swift Character).
    static let controls = ["\r\n", "\n", "\r", "\t", "\u{0B}", "\u{0C}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9B}", "\u{2028}", "\u{2029}", "\u{00}"]

    @Test(arguments: controls)
    func flattenedLeavesNoControlScalar(_ control: String) {
        let flat = TerminalText.flattened("a\(control)b")
        #expect(!flat.unicodeScalars.contains { TerminalText.isControl($0) }, "\(Array(flat.unicodeScalars))")
        #expect(flat.hasPrefix("a") && flat.hasSuffix("b"))
    }

    @Test func flattenedKeepsOrdinaryTextExact() {
        let text = "Study 📚 at café 👩‍👩‍👧‍👦 — «ok» עברית"
        #expect(TerminalText.flattened(text) == text)
        #expect(TerminalText.escaped(text) == text)
    }

    @Test func escapedShowsWhatWasTyped() {
        #expect(TerminalText.escaped("2026\nx") == "2026\\nx")
        #expect(TerminalText.escaped("a\r\nb") == "a\\r\\nb")
        #expect(TerminalText.escaped("\u{1B}[2J\u{85}") == "\\u{1B}[2J\\u{85}")
        #expect(!TerminalText.escaped("x\u{2028}y\u{7F}").unicodeScalars.contains { TerminalText.isControl($0) })
    }

    @Test func quotedCutsALongValueToItsStartAndLength() {
        #expect(TerminalText.quoted("7s") == "'7s'")
        #expect(TerminalText.quoted("a\nb") == "'a\\nb'")
        let eighty = String(repeating: "x", count: 80)
        #expect(TerminalText.quoted(eighty) == "'\(eighty)'")
        #expect(TerminalText.quoted(eighty + "y") == "'\(eighty)…' (81 characters)")
        // Never inside a Character: 11 families of 7 scalars are 77; the 12th would pass 80.
        let family = "👩‍👩‍👧‍👦"
        #expect(TerminalText.quoted(String(repeating: family, count: 20)) == "'\(String(repeating: family, count: 11))…' (140 characters)")
        // An escape is never cut either: the cut is made before escaping.
        #expect(TerminalText.quoted(String(repeating: "\u{1B}", count: 100)).hasSuffix("\\u{1B}…' (100 characters)"))
    }

    @Test func shortenedKeepsBothEndsOfALongLine() {
        let line = "start " + String(repeating: "d/", count: 5_000) + " end: what to do"
        let short = TerminalText.shortened(line)
        #expect(short.unicodeScalars.count <= TerminalText.lineLimit)
        #expect(short.hasPrefix("start d/d/") && short.hasSuffix(" end: what to do") && short.contains("characters cut"))
        #expect(TerminalText.shortened("short") == "short")
    }

    @Test func identifierLengthCountsCodePointsAsSQLiteDoes() {
        let family = "👩‍👩‍👧‍👦"  // 1 Character, 7 scalars
        #expect(family.count == 1 && family.unicodeScalars.count == 7)
        #expect(RequestText.identifierProblem(String(repeating: family, count: 28)) == nil)  // 196 scalars
        #expect(RequestText.identifierProblem(String(repeating: family, count: 29)) != nil)  // 203 scalars
        #expect(RequestText.identifierProblem(String(repeating: "x", count: 200)) == nil)
        #expect(RequestText.identifierProblem(String(repeating: "x", count: 201)) != nil)
        #expect(RequestText.identifierProblem("") != nil)
    }

    @Test(arguments: controls)
    func identifierWithAControlIsRefused(_ control: String) {
        #expect(RequestText.identifierProblem("a\(control)b") != nil)
    }

    @Test func blankIdentifiersAndTitlesAreRefused() {
        #expect(RequestText.identifierProblem("   ") != nil)
        #expect(RequestText.titleProblem("") != nil)
        #expect(RequestText.titleProblem(" \t\u{3000}") != nil)
        #expect(RequestText.titleProblem("-5 push-ups") == nil)
        #expect(RequestText.identifierProblem("my reminder") == nil)
    }

    @Test func instantArithmeticSaturatesInsteadOfTrapping() {
        let top = Instant(milliseconds: .max)
        let bottom = Instant(milliseconds: .min)
        #expect((top + 1).milliseconds == .max)
        #expect((bottom - 1).milliseconds == .min)
        #expect((bottom + .min).milliseconds == .min)
        #expect(top - bottom == .max)
        #expect(bottom - top == .min)
        #expect(Instant(seconds: .max).milliseconds == .max)
        #expect(Instant(seconds: .min).milliseconds == .min)
        #expect(Instant(milliseconds: 1000) + 500 == Instant(milliseconds: 1500))
    }

    @Test func extremeInstantsStillFormat() {
        let zone = Zone.fixed(name: "X", offsetSeconds: 9 * 3600)
        for ms in [Int64.min, Int64.min + 1, -1, 0, Int64.max - 1, Int64.max] {
            let instant = Instant(milliseconds: ms)
            _ = zone.rfc3339(instant)
            _ = Zone.utc.rfc3339(instant)
            _ = describeRelative(instant, from: Instant(milliseconds: 1_795_392_000_000))
            _ = describeDuration(milliseconds: ms)
        }
        #expect(describeDuration(milliseconds: .min).hasSuffix("h"))
    }
}
