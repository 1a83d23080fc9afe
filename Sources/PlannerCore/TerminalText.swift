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
        text.unicodeScalars.contains(where: isControl)
    }

    /// `text` with each control scalar replaced by one space: for output whose layout is fixed (the
    /// tab-separated stdout sink line, table cells), where the text itself should stay readable.
    public static func flattened(_ text: String) -> String {
        guard containsControl(text) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(isControl(scalar) ? " " : scalar) }
        return String(out)
    }

    /// `text` with each control scalar written as a visible escape (`\n`, `\t`, `\r`, `\u{1B}`): for
    /// echoing a user's value in an error message, where they should see exactly what they typed.
    public static func escaped(_ text: String) -> String {
        guard containsControl(text) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(scalar): out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
