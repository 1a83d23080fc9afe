/// Text that came from a user or a database file, made safe to print as (part of) one line.
///
/// A title or identifier can hold anything argv or a database file can: CR-LF, vertical tab, form feed,
/// ESC sequences that recolour or clear a terminal, NEL (U+0085) and the other C1 controls, DEL,
/// U+2028/U+2029. All of these are Unicode *scalars*; Swift's `Character` merges "\r\n" into one
/// grapheme, so filters must look at scalars, never at Characters.
public enum TerminalText {
    /// Scalars that break a line or drive a terminal: C0 controls (tab, LF, CR, VT, FF, ESC …), DEL,
    /// C1 controls (NEL, CSI …), LINE SEPARATOR and PARAGRAPH SEPARATOR.
    @inlinable
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (v >= 0x7F && v <= 0x9F) || v == 0x2028 || v == 0x2029
    }

    /// Whether `text` holds any scalar that `isControl` names.
    public static func containsControl(_ text: String) -> Bool {
        if isPrintableASCII(text) { return false }
        return text.unicodeScalars.contains(where: isControl)
    }

    /// Printable ASCII only (most text the planner shows): nothing to look up per scalar.
    @inlinable
    public static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// `text` with each control scalar, and each format character that hides or reorders text
    /// (`FormatCharacters`: a database edited by hand can hold one), replaced by one space: for output whose
    /// layout is fixed (the tab-separated stdout sink line, table cells), where the text should stay readable.
    public static func flattened(_ text: String) -> String {
        guard let hidden = unsafeScalars(text) else { return text }
        var out = String.UnicodeScalarView()
        for (i, scalar) in text.unicodeScalars.enumerated() { out.append(isControl(scalar) || hidden.contains(i) ? " " : scalar) }
        return String(out)
    }

    /// nil when `text` holds neither a control scalar nor a refused format character; else the indexes
    /// (in scalars) of the refused format characters.
    static func unsafeScalars(_ text: String) -> Set<Int>? {
        if isPrintableASCII(text) { return nil }
        var control = false
        var format = false
        for scalar in text.unicodeScalars {
            control = control || isControl(scalar)
            format = format || FormatCharacters.isFormat(scalar)
        }
        guard control || format else { return nil }
        return format ? Set(FormatCharacters.refusals(in: Array(text.unicodeScalars)).map(\.index)) : []
    }

    /// How many characters (code points) of a value an error message quotes: enough to recognise it.
    public static let quoteLimit = 80
    /// How long an error line may be, whatever it echoes (a path, ArgumentParser's message).
    public static let lineLimit = 1_000

    /// `'value'` for a message, escaped as `escaped` does; a value longer than `quoteLimit` is quoted
    /// by its start and its length (`'word word …' (100000 characters)`): a pasted essay must not make
    /// a 100 KB error line. Cut between Characters, never inside an emoji or an escape.
    public static func quoted(_ value: String) -> String {
        let count = value.unicodeScalars.count
        guard count > quoteLimit else { return "'" + escaped(value) + "'" }
        var head = ""
        var taken = 0
        for character in value {
            taken += character.unicodeScalars.count
            if taken > quoteLimit { break }
            head.append(character)
        }
        return "'" + escaped(head) + "…' (\(count) characters)"
    }

    /// `line` cut in the middle when longer than `limit` characters, keeping its start and its end (what
    /// to do): for messages echoing what the planner did not quote itself.
    public static func shortened(_ line: String, limit: Int = lineLimit) -> String {
        let scalars = Array(line.unicodeScalars)
        guard scalars.count > limit else { return line }
        let keepEnd = limit / 3
        let keepStart = limit - keepEnd - 40
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[..<keepStart])
        out.append(contentsOf: " …(\(scalars.count - keepStart - keepEnd) characters cut)… ".unicodeScalars)
        out.append(contentsOf: scalars[(scalars.count - keepEnd)...])
        return String(out)
    }

    /// `text` with each control scalar, and each format character that hides or reorders text, written as
    /// a visible escape (`\n`, `\t`, `\r`, `\u{1B}`, `\u{202E}`): for echoing a user's value in an error
    /// message, where they should see exactly what they typed.
    public static func escaped(_ text: String) -> String {
        guard let hidden = unsafeScalars(text) else { return text }
        var out = ""
        for (i, scalar) in text.unicodeScalars.enumerated() {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(scalar) || hidden.contains(i): out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
