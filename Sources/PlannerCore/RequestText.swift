/// What `add` accepts as a request's identifier, title and body, checked before anything is stored.
public enum RequestText {
    /// The schema's CHECK (length(identifier) BETWEEN 1 AND 200): SQLite's length() counts Unicode
    /// code points, so this limit is in scalars, not Characters ("👩‍👩‍👧‍👦" is 1 Character, 7 scalars).
    public static let maxIdentifierScalars = 200

    /// Why `identifier` cannot be used, or nil when it can. Only a hiding character's message quotes the
    /// value (`TerminalText.quoted`: cut, and the character shown as an escape), to show where it is.
    public static func identifierProblem(_ identifier: String) -> String? {
        let count = identifier.unicodeScalars.count
        if count == 0 || count > maxIdentifierScalars {
            return "--id must be 1 to \(maxIdentifierScalars) characters (Unicode code points; an emoji can be several), got \(count)"
        }
        if TerminalText.containsControl(identifier) {
            return "--id must not contain tabs, line breaks or other control characters"
        }
        if let problem = hidingProblem("--id", identifier) { return problem }
        if isBlank(identifier) { return "--id must not be only spaces or invisible characters" }
        return nil
    }

    /// Why `title` cannot be used, or nil when it can.
    public static func titleProblem(_ title: String) -> String? {
        if let problem = hidingProblem("--title", title) { return problem }
        return isBlank(title) ? "--title must contain some visible text" : nil
    }

    /// Why `body` cannot be used, or nil when it can.
    public static func bodyProblem(_ body: String) -> String? {
        hidingProblem("--body", body)
    }

    /// A format character that hides or reorders text (`FormatCharacters`): the reminder would not read
    /// as typed, in a notification or in `planner list`.
    static func hidingProblem(_ option: String, _ text: String) -> String? {
        FormatCharacters.firstRefused(in: text).map {
            "\(option) \(TerminalText.quoted(text)) holds \(FormatCharacters.describe($0)), which would not show as typed: remove it"
        }
    }

    /// Nothing visible: empty, or only spaces, controls and characters that render as nothing.
    static func isBlank(_ text: String) -> Bool {
        !FormatCharacters.hasVisible(text)
    }
}
