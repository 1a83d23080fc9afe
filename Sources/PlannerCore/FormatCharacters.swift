/// Characters that change how the text around them reads without being seen: the Unicode format
/// characters (general category Cf) — bidi embeddings, overrides and isolates (U+202E makes
/// "invoice\u{202E}fdp.exe" read "invoiceexe.pdf"), zero-width spaces, the byte order mark, invisible
/// operators. A reminder must read as it was typed, so its title, body and identifier refuse them, except
/// where real text needs them:
/// - after a visible character, the joiners and marks that live inside words: ZERO WIDTH JOINER (👩‍💻,
///   Indic conjuncts), NON-JOINER (Persian), the left-to-right, right-to-left and Arabic letter marks
///   (punctuation in Hebrew and Arabic), the soft hyphen, the Mongolian vowel separator and the Egyptian
///   hieroglyph format controls;
/// - before a visible character, the Arabic number signs (U+0600–0605, END OF AYAH U+06DD …), which are
///   themselves visible;
/// - an emoji's tag sequence: tag characters after an emoji, ended by CANCEL TAG (the flag of Scotland).
public enum FormatCharacters {
    /// The first scalar of `text` that may not be there, and why; nil when there is none.
    public static func firstRefused(in text: String) -> (scalar: Unicode.Scalar, why: String)? {
        guard !TerminalText.isPrintableASCII(text), text.unicodeScalars.contains(where: isFormat) else { return nil }
        let scalars = Array(text.unicodeScalars)
        return refusals(in: scalars).first.map { (scalars[$0.index], $0.why) }
    }

    /// Every scalar of `scalars` that may not be there (by index), and why.
    public static func refusals(in scalars: [Unicode.Scalar]) -> [(index: Int, why: String)] {
        var refused: [(index: Int, why: String)] = []
        var i = 0
        while i < scalars.count {
            let s = scalars[i]
            guard isFormat(s) else {
                i += 1
                continue
            }
            let before = i > 0 ? scalars[i - 1] : nil
            let after = i + 1 < scalars.count ? scalars[i + 1] : nil
            if isTagSpec(s), let base = before, base.properties.isEmoji, !isTagSpec(base) {
                // A run of tag characters after an emoji, ended by CANCEL TAG.
                var end = i
                while end < scalars.count, isTagSpec(scalars[end]) { end += 1 }
                if end < scalars.count, scalars[end].value == 0xE007F {
                    i = end + 1
                    continue
                }
            }
            if isTagSpec(s) || s.value == 0xE007F {
                refused.append((i, "a tag character outside an emoji's tag sequence"))
            } else if isInWordMark(s) {
                if !(before.map(carriesText) ?? false) {
                    refused.append((i, "an invisible joiner or mark, which belongs only after a visible character"))
                }
            } else if isNumberSign(s) {
                if !(after.map(carriesText) ?? false) {
                    refused.append((i, "a number sign, which belongs only before a visible character"))
                }
            } else if s.properties.isBidiControl {
                refused.append((i, "a bidirectional control, which reorders the text around it"))
            } else {
                refused.append((i, "an invisible format character"))
            }
            i += 1
        }
        return refused
    }

    /// `U+202E (a bidirectional control, which reorders the text around it)`: for an error message.
    public static func describe(_ refused: (scalar: Unicode.Scalar, why: String)) -> String {
        "U+\(hex(refused.scalar)) (\(refused.why))"
    }

    /// Whether anything in `text` can be seen: not only spaces, controls, format characters and the
    /// characters that render as nothing (Hangul fillers, variation selectors, BRAILLE PATTERN BLANK).
    public static func hasVisible(_ text: String) -> Bool {
        text.unicodeScalars.contains { carriesText($0) && !$0.properties.isDefaultIgnorableCodePoint && $0.value != 0x2800 }
    }

    /// Whether `scalar` is one the refusal applies to: general category Cf.
    @inlinable
    public static func isFormat(_ scalar: Unicode.Scalar) -> Bool {
        // Every Cf scalar is at or above U+00AD: most text never reaches the property lookup.
        scalar.value >= 0xAD && scalar.properties.generalCategory == .format
    }

    /// Part of the text a joiner or sign attaches to: not a space, a control or a format character.
    static func carriesText(_ scalar: Unicode.Scalar) -> Bool {
        !scalar.properties.isWhitespace && !TerminalText.isControl(scalar) && !isFormat(scalar)
    }

    static func isInWordMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200C, 0x200D, 0x200E, 0x200F, 0x061C, 0x00AD, 0x180E, 0x13430...0x1343F: true
        default: false
        }
    }

    static func isNumberSign(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0600...0x0605, 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x110BD, 0x110CD: true
        default: false
        }
    }

    static func isTagSpec(_ scalar: Unicode.Scalar) -> Bool { (0xE0020...0xE007E).contains(scalar.value) }

    static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
