import CSQLite
import PlannerCore
import SchemaFingerprint

/// A trigger of the user's own on one of the planner's tables runs inside the planner's changes. An audit
/// log (an AFTER trigger writing a table of the user's own) is a fair use of a schema that is part of the
/// interface; but a BEFORE trigger can skip the planner's row (`RAISE(IGNORE)`: an open silently not
/// recorded), and one that writes the planner's tables, itself or through a trigger of its own, can undo
/// the change it follows (an open deleted as it is recorded). Those are refused before anything is written.
extension Transaction {
    /// Throws for the first (in name order) trigger of the user's own on a planner table or view that runs
    /// other than AFTER, or that writes a planner table; and when SQLite cannot compile one (it names a
    /// table since dropped, say), since every planner change to that table would fail with SQLite's text.
    package func checkForeignTriggers(quotedPlannerObjects: String) throws {
        // A UNIQUE index of the user's own on a planner table refuses the planner's own rows the same way
        // (a second open of a day), and another device's change refused is left out for good.
        let unique = try connection.prepare(SchemaFingerprint.foreignUniqueIndexQuery(quotedNames: quotedPlannerObjects))
        if try unique.step() {
            let name = unique.text(0)
            throw PlannerError.data(
                "\(path) has a unique index of your own, \(name), on the planner's \(unique.text(1)): it can refuse the planner's own changes; drop it (DROP INDEX \(SchemaFingerprint.identifier(name));) or make one that is not UNIQUE; nothing was changed"
            )
        }
        var tables: [(table: String, triggers: [String])] = []
        let stmt = try connection.prepare(SchemaFingerprint.foreignTriggersQuery(quotedNames: quotedPlannerObjects))
        while try stmt.step() {
            let name = stmt.text(0)
            let table = stmt.text(1)
            guard TriggerText.runsAfter(stmt.text(2)) else {
                throw PlannerError.data(
                    "\(path) has a trigger of your own, \(name), that runs before (or instead of) the planner's changes to \(table): it can skip them; drop it (DROP TRIGGER \(SchemaFingerprint.identifier(name));): on the planner's tables only AFTER triggers that write tables of your own are allowed; nothing was changed"
                )
            }
            // Names ignore case: `ON APP_OPEN` and `ON app_open` are one table, probed once.
            if let i = tables.firstIndex(where: { $0.table.lowercased() == table.lowercased() }) {
                tables[i].triggers.append(name)
            } else {
                tables.append((table, [name]))
            }
        }
        guard !tables.isEmpty else { return }
        let writes = TriggerWrites(plannerObjects: Self.plannerObjectSet)
        try withExtendedLifetime(writes) {
            sqlite3_set_authorizer(connection.handle, TriggerWrites.authorize, Unmanaged.passUnretained(writes).toOpaque())
            defer { sqlite3_set_authorizer(connection.handle, nil, nil) }
            for (table, triggers) in tables {
                var columns: [String] = []
                let stmt = try connection.prepare("SELECT name FROM pragma_table_info(?)")
                try stmt.bind([.text(table)])
                while try stmt.step() { columns.append(stmt.text(0)) }
                for change in SchemaFingerprint.Change.allCases {
                    do throws(SQLiteError) {
                        _ = try connection.prepare(SchemaFingerprint.triggerProbe(change, table: table, columns: columns))  // compiled, never run
                    } catch {
                        throw PlannerError.data(
                            "\(path) has \(triggers.count == 1 ? "a trigger" : "triggers") of your own on the planner's \(table) (\(triggers.joined(separator: ", "))) that SQLite cannot run (\(error.message)): fix or drop \(triggers.count == 1 ? "it" : "the one at fault"); nothing was changed"
                        )
                    }
                    if let (trigger, written) = writes.found {
                        throw PlannerError.data(
                            "\(path) has a trigger of your own, \(trigger), that writes the planner's \(written) inside the planner's changes to \(table): it can undo them; drop it (DROP TRIGGER \(SchemaFingerprint.identifier(trigger));) or make it write only tables of your own; nothing was changed"
                        )
                    }
                }
            }
        }
    }

    private static let plannerObjectSet = Set(PlannerDatabase.plannerObjects)

    /// A change from another device or a folder that the database refuses is left out and reported, the
    /// others still applied (`applySourced`). With triggers of the user's own on the planner's tables the
    /// planner cannot tell their failure (a `RAISE`, a constraint of the user's table) from its own refusal,
    /// and leaving the change out would lose it for good: so the command stops, nothing changed, and the
    /// change is read again next time.
    package func stopIfForeignTriggers(refused message: String, event: PlanEvent) throws {
        let names = try foreignTriggerNames()
        guard !names.isEmpty else { return }
        let from = event.stamp.map { " from device \($0.device)" } ?? ""
        throw PlannerError(
            .ownTrigger,
            "\(path): event \(event.id)\(from) failed in the database (\(message)) while the planner's tables have triggers of your own (\(names.joined(separator: ", "))): if one of them failed, fix or drop it and run again; the event waits, nothing was changed"
        )
    }

    fileprivate func foreignTriggerNames() throws -> [String] {
        var names: [String] = []
        let stmt = try connection.prepare(SchemaFingerprint.foreignTriggersQuery(quotedNames: PlannerDatabase.plannerObjectsQuoted))
        while try stmt.step() { names.append(stmt.text(0)) }
        return names
    }

    /// A trigger of the user's own that runs `RAISE(ROLLBACK)` ends the whole transaction, savepoints and
    /// all: said as what it is, not as SQLite's "no such savepoint" from the undo that follows.
    package func stopIfRolledBack(_ message: String) throws {
        guard sqlite3_get_autocommit(connection.handle) != 0 else { return }
        throw PlannerError(
            .ownTrigger,
            "\(path): a trigger of your own rolled the planner's change back (\(message)): fix or drop it and run again; nothing was changed"
        )
    }
}

extension PlannerDatabase {
    /// What a change's constraint error becomes while triggers of the user's own are on the planner's
    /// tables (nil: none are, and it stays SQLite's): `.ownTrigger`, so that a login's open is saved for
    /// later rather than lost (`LoginOpen`). Read after the transaction was undone.
    package func ownTriggerError(_ error: SQLiteError) -> PlannerError? {
        guard error.primaryCode == SQLITE_CONSTRAINT, let names = try? read({ try $0.foreignTriggerNames() }), !names.isEmpty else { return nil }
        return PlannerError(
            .ownTrigger,
            "\(path): the planner's change failed in the database (\(error.message)) while its tables have triggers of your own (\(names.joined(separator: ", "))): if one of them failed, fix or drop it and run again; nothing was changed"
        )
    }
}

/// What SQLite's authorizer saw while compiling: the first write to a planner table made by a trigger that
/// is not the planner's (the authorizer names the innermost trigger responsible for each access).
private final class TriggerWrites {
    package let plannerObjects: Set<String>
    package var found: (trigger: String, table: String)?

    package init(plannerObjects: Set<String>) { self.plannerObjects = plannerObjects }

    package static let authorize:
        @convention(c) (
            UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?
        ) -> Int32 = { context, action, table, _, _, trigger in
            guard action == SQLITE_INSERT || action == SQLITE_UPDATE || action == SQLITE_DELETE,
                let context, let table, let trigger
            else { return SQLITE_OK }
            let writes = Unmanaged<TriggerWrites>.fromOpaque(context).takeUnretainedValue()
            let triggerName = String(cString: trigger)
            let tableName = String(cString: table)
            if writes.found == nil, !writes.plannerObjects.contains(triggerName), writes.plannerObjects.contains(tableName) {
                writes.found = (triggerName, tableName)
            }
            return SQLITE_OK
        }
}

/// Reads a trigger's SQL as SQLite stores it in `sqlite_schema`.
package enum TriggerText {
    /// Whether `sql` (`CREATE TRIGGER name [BEFORE|AFTER|INSTEAD OF] event ON …`) is an AFTER trigger.
    /// Without a time SQLite runs it BEFORE. Anything this cannot read counts as not AFTER: refused.
    package static func runsAfter(_ sql: String) -> Bool {
        var words = SQLWords(Array(sql.utf8))
        guard words.next()?.lowercased() == "create" else { return false }
        var word = words.next()?.lowercased()
        if word == "temp" || word == "temporary" { word = words.next()?.lowercased() }
        guard word == "trigger" else { return false }
        guard var name = words.next() else { return false }
        if name.lowercased() == "if" {
            guard words.next()?.lowercased() == "not", words.next()?.lowercased() == "exists", let next = words.next() else { return false }
            name = next
        }
        var time = words.next()
        if time == "." {  // schema.name
            guard words.next() != nil else { return false }
            time = words.next()
        }
        return time?.lowercased() == "after"
    }
}

/// SQL's words, one at a time: a quoted identifier or string (`"…"`, `` `…` ``, `[…]`, `'…'`) is one word,
/// a bare word runs over letters, digits, `_`, `$` and any non-ASCII byte, and any other byte is a word of
/// its own; white space and comments (`--…`, `/*…*/`) are skipped.
package struct SQLWords {
    private let bytes: [UInt8]
    private var at = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package mutating func next() -> String? {
        skipSpaceAndComments()
        guard at < bytes.count else { return nil }
        let start = at
        let first = bytes[at]
        if let close = Self.closing(first) {
            at += 1
            while at < bytes.count {
                if bytes[at] == close {
                    // A doubled closing quote is one quote inside the word (not for `]`).
                    if close != UInt8(ascii: "]"), at + 1 < bytes.count, bytes[at + 1] == close {
                        at += 2
                        continue
                    }
                    at += 1
                    return String(decoding: bytes[start..<at], as: UTF8.self)
                }
                at += 1
            }
            return nil  // unterminated
        }
        if Self.isWordByte(first) {
            while at < bytes.count, Self.isWordByte(bytes[at]) { at += 1 }
        } else {
            at += 1
        }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }

    private mutating func skipSpaceAndComments() {
        while at < bytes.count {
            let byte = bytes[at]
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                at += 1
            } else if byte == UInt8(ascii: "-"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "-") {
                while at < bytes.count, bytes[at] != 0x0A { at += 1 }
            } else if byte == UInt8(ascii: "/"), at + 1 < bytes.count, bytes[at + 1] == UInt8(ascii: "*") {
                at += 2
                while at < bytes.count, !(bytes[at] == UInt8(ascii: "*") && at + 1 < bytes.count && bytes[at + 1] == UInt8(ascii: "/")) { at += 1 }
                at = min(at + 2, bytes.count)
            } else {
                return
            }
        }
    }

    private static func closing(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "`"): byte
        case UInt8(ascii: "["): UInt8(ascii: "]")
        default: nil
        }
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
    }
}
