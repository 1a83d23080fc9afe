/// What `add` accepts as a request's identifier and title, checked before anything is stored.
public enum RequestText {
    /// The schema's CHECK (length(identifier) BETWEEN 1 AND 200): SQLite's length() counts Unicode
    /// code points, so this limit is in scalars, not Characters ("👩‍👩‍👧‍👦" is 1 Character, 7 scalars).
    public static let maxIdentifierScalars = 200

    /// Why `identifier` cannot be used, or nil when it can. The message names no value: the value may be
    /// long or unprintable.
    public static func identifierProblem(_ identifier: String) -> String? {
        let count = identifier.unicodeScalars.count
        if count == 0 || count > maxIdentifierScalars {
            return "--id must be 1 to \(maxIdentifierScalars) characters (Unicode code points; an emoji can be several), got \(count)"
        }
        if TerminalText.containsControl(identifier) {
            return "--id must not contain tabs, line breaks or other control characters"
        }
        if isBlank(identifier) { return "--id must not be only spaces" }
        return nil
    }

    /// Why `title` cannot be used, or nil when it can.
    public static func titleProblem(_ title: String) -> String? {
        isBlank(title) ? "--title must contain some visible text" : nil
    }

    /// Empty, or nothing but white space and control characters.
    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isWhitespace || TerminalText.isControl($0) }
    }
}
