/// How many terminal columns text takes: what every table and the stats legend align and wrap by.
/// `String.count` counts characters, but a terminal draws East Asian wide characters (Hangul, kana, CJK,
/// fullwidth forms, most emoji) two columns wide and combining marks in the column before.
public enum DisplayWidth {
    /// The columns of one scalar: 0 for combining and enclosing marks, format characters, controls and
    /// the Hangul vowels and final consonants that join a syllable; 2 for East Asian Wide or Fullwidth;
    /// else 1 (the ambiguous ones too, as most terminals outside East Asian locales draw them).
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x7F { return v < 0x20 ? 0 : 1 }
        if TerminalText.isControl(scalar) || (0x1160...0x11FF).contains(v) || (0xD7B0...0xD7FF).contains(v) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        return isWide(v) ? 2 : 1
    }

    /// The columns of `text`: the sum over its scalars.
    public static func of(_ text: String) -> Int {
        if TerminalText.isPrintableASCII(text) { return text.utf8.count }
        return text.unicodeScalars.reduce(0) { $0 + of($1) }
    }

    /// `text` followed by spaces up to `width` columns (nothing added when it is already as wide).
    public static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - of(text)))
    }

    static func isWide(_ v: UInt32) -> Bool {
        // Binary search over the sorted ranges (EastAsianWidth.swift).
        var low = 0
        var high = eastAsianWideRanges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let range = eastAsianWideRanges[mid]
            if v < range.lowerBound { high = mid - 1 } else if v > range.upperBound { low = mid + 1 } else { return true }
        }
        return false
    }
}
