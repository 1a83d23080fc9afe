import Foundation
import Testing

@testable import PlannerCore

/// Which characters a reminder's text refuses, against Python's `unicodedata` (an independent copy of the
/// Unicode database): every format character (category Cf) is refused alone, only the documented ones
/// are let through inside text, and no character of another category is ever refused.
@Suite struct FormatCharacterTests {
    /// Python's general category of every assigned code point, as runs `first last category`.
    static let pythonCategories: [(ClosedRange<UInt32>, String)] = {
        let script = """
            import sys, unicodedata
            runs, start, last = [], None, None
            for cp in range(0x110000):
                cat = unicodedata.category(chr(cp))
                if start is not None and cat == last and cp == end + 1:
                    end = cp
                    continue
                if start is not None:
                    runs.append(f"{start} {end} {last}")
                start, end, last = cp, cp, cat
            runs.append(f"{start} {end} {last}")
            print(unicodedata.unidata_version)
            print("\\n".join(runs))
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script]
        let out = Pipe()
        p.standardOutput = out
        try! p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: " ")
            return (UInt32(f[0])!...UInt32(f[1])!, String(f[2]))
        }
    }()

    /// Let through between two letters: the in-word joiners and marks, and the number signs (which are
    /// visible) before a digit. Tag characters only inside an emoji's tag sequence, tested below.
    static let allowedInsideText: Set<UInt32> = Set(
        [0x200C, 0x200D, 0x200E, 0x200F, 0x061C, 0x00AD, 0x180E]
            + Array(0x13430...0x1343F) + Array(0x0600...0x0605) + [0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD])

    @Test func everyFormatCharacterIsRefusedAloneAndOnlyTheDocumentedOnesInsideText() {
        let formats = Self.pythonCategories.filter { $0.1 == "Cf" }.flatMap { Array($0.0) }
        #expect(formats.count > 150, "python3 listed \(formats.count) format characters")
        #expect(formats.contains(0x202E) && formats.contains(0x200B) && formats.contains(0xFEFF))
        for value in formats {
            let s = Unicode.Scalar(value)!
            #expect(FormatCharacters.firstRefused(in: String(s)) != nil, "U+\(String(value, radix: 16)) alone")
            #expect(
                FormatCharacters.firstRefused(in: "a\(s)1") == nil ? Self.allowedInsideText.contains(value) : !Self.allowedInsideText.contains(value),
                "U+\(String(value, radix: 16)) inside text")
            #expect(!FormatCharacters.hasVisible(String(s)), "U+\(String(value, radix: 16)) alone counts as visible")
        }
    }

    /// No character of another category is refused, whatever surrounds it (controls are refused elsewhere).
    @Test func noOtherCharacterIsRefused() {
        var checked = 0
        for (range, category) in Self.pythonCategories where !["Cf", "Cn", "Cs"].contains(category) {
            for value in range {
                let s = Unicode.Scalar(value)!
                if let refused = FormatCharacters.firstRefused(in: "a\(s)b") ?? FormatCharacters.firstRefused(in: String(s)) {
                    Issue.record("U+\(String(value, radix: 16)) (\(category)) refused: \(refused.why)")
                }
                checked += 1
            }
        }
        #expect(checked > 140_000)
    }

    @Test func emojiTagSequencesAreTheOnlyPlaceForTagCharacters() {
        let scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
        #expect(FormatCharacters.firstRefused(in: scotland) == nil)
        #expect(FormatCharacters.firstRefused(in: "Go \(scotland)\(scotland)!") == nil)
        // Not ended by CANCEL TAG, after no emoji, CANCEL TAG alone, LANGUAGE TAG.
        for bad in ["\u{1F3F4}\u{E0067}\u{E0062}", "a\u{E0067}\u{E007F}", "\u{1F3F4}\u{E007F}", "\u{E0001}en", "\u{1F3F4}\u{E0067}x\u{E007F}"] {
            #expect(FormatCharacters.firstRefused(in: bad) != nil, "\(bad.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func joinersBelongAfterTextAndNumberSignsBeforeIt() {
        #expect(FormatCharacters.firstRefused(in: "\u{1F469}\u{200D}\u{1F4BB}") == nil)
        #expect(FormatCharacters.firstRefused(in: "\u{2764}\u{FE0F}\u{200D}\u{1F525}") == nil)  // after a variation selector
        #expect(FormatCharacters.firstRefused(in: "\u{200D}x")?.scalar == "\u{200D}")
        #expect(FormatCharacters.firstRefused(in: "a \u{200C}b")?.scalar == "\u{200C}")
        #expect(FormatCharacters.firstRefused(in: "a\u{200D}\u{200D}b")?.scalar == "\u{200D}")  // the second has no text before it
        #expect(FormatCharacters.firstRefused(in: "\u{6DD}\u{661}") == nil)
        #expect(FormatCharacters.firstRefused(in: "\u{6DD} 1")?.scalar == "\u{6DD}")
        #expect(FormatCharacters.firstRefused(in: "x\u{202E}y")?.why.contains("bidirectional") == true)
    }

    @Test func somethingVisibleIsNeeded() {
        for blank in [
            "", " ", "\u{200B}", "\u{3164}", "\u{115F}\u{1160}", "\u{FFA0}", "\u{2800}", "\u{FE0F}", "\u{3000}\u{A0}\u{2007}", "\u{34F}", "\u{E0020}",
        ] {
            #expect(!FormatCharacters.hasVisible(blank), "\(blank.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        for seen in ["a", "\u{301}", "한", "\u{1F469}\u{200D}\u{1F4BB}", "\u{6DD}\u{661}", "-", "\u{E000}"] {
            #expect(FormatCharacters.hasVisible(seen), "\(seen.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    /// Escaped in messages and flattened in tables, so a database edited by hand cannot reorder a line
    /// either; an emoji's joiner is left alone.
    @Test func messagesAndTablesShowThemAsEscapesOrSpaces() {
        #expect(TerminalText.escaped("a\u{202E}b \u{1F469}\u{200D}\u{1F4BB}") == "a\\u{202E}b \u{1F469}\u{200D}\u{1F4BB}")
        #expect(TerminalText.flattened("a\u{202E}b\u{200B}c \u{1F469}\u{200D}\u{1F4BB}") == "a b c \u{1F469}\u{200D}\u{1F4BB}")
        #expect(TerminalText.quoted("x\u{2066}") == "'x\\u{2066}'")
    }
}
