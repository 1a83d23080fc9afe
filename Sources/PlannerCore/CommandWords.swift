/// A command line stored as one setting (`study-command`), split into words the way a POSIX shell splits
/// them — blanks separate, '…' is literal, "…" keeps blanks, a backslash escapes — and nothing else: no
/// variables, no `~`, no globbing, no `;` or pipes. The words are run directly (exec), never by a shell,
/// so a value is data, never code. The same rules as Python's `shlex.split` (the tests compare).
public enum CommandWords {
    public struct Problem: Error, Equatable, Sendable {
        public var message: String
    }

    public static func split(_ text: String) throws(Problem) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var scalars = text.unicodeScalars.makeIterator()
        while let c = scalars.next() {
            switch c {
            case " ", "\t", "\r", "\n":
                if inWord {
                    words.append(word)
                    word = ""
                    inWord = false
                }
            case "'":
                inWord = true
                while true {
                    guard let q = scalars.next() else { throw Problem(message: "a ' is not closed") }
                    if q == "'" { break }
                    word.unicodeScalars.append(q)
                }
            case "\"":
                inWord = true
                while true {
                    guard let q = scalars.next() else { throw Problem(message: "a \" is not closed") }
                    if q == "\"" { break }
                    if q == "\\" {
                        // Inside "…" a backslash escapes only " and \ (as shlex; a shell also takes $ and `).
                        guard let e = scalars.next() else { throw Problem(message: "a \" is not closed") }
                        if e != "\"" && e != "\\" { word.unicodeScalars.append(q) }
                        word.unicodeScalars.append(e)
                    } else {
                        word.unicodeScalars.append(q)
                    }
                }
            case "\\":
                guard let e = scalars.next() else { throw Problem(message: "it ends with a lone \\") }
                inWord = true
                word.unicodeScalars.append(e)
            default:
                inWord = true
                word.unicodeScalars.append(c)
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// The words quoted back into one line that `split` reads as the same words (for messages and `config`).
    public static func join(_ words: [String]) -> String {
        words.map { w in
            let plain =
                !w.isEmpty
                && w.unicodeScalars.allSatisfy {
                    ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value | 0x20 >= 0x61 && $0.value | 0x20 <= 0x7A)
                        || "-_./:=@%+,".unicodeScalars.contains($0)
                }
            return plain ? w : "'" + w.replacing("'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}
