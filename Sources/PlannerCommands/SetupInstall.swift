import Glibc
import PlannerCore

/// One item of `planner setup`'s plan: the file its edit really goes to, and the content before and after.
struct SetupChange {
    var item: SetupItem
    /// The item's path, or for a symbolic link the file it names (the link itself is never replaced).
    var target: String
    var current: String?
    var next: String

    /// The crontab a `.crontab` item edits.
    var crontab: Crontab

    init(_ item: SetupItem, crontab: Crontab) throws(PlannerError) {
        self.item = item
        self.crontab = crontab
        target = item.kind == .crontab ? item.path : try SetupFiles.editTarget(item.path)
        current = item.kind == .crontab ? crontab.read() : SetupFiles.read(item.path)
        next = item.kind == .file ? item.content : SetupPlan.withBlock(current ?? "", item.content)
    }

    var shownPath: String { target == item.path ? item.path : "\(item.path) (a link: its file \(target))" }

    func apply() throws(PlannerError) {
        if item.kind == .crontab { try crontab.set(next) } else { try SetupFiles.write(target, next) }
    }

    /// Puts back what `apply` replaced.
    func undo() throws(PlannerError) {
        if item.kind == .crontab {
            try crontab.set(current)
        } else if let current {
            try SetupFiles.write(target, current)
        } else {
            try SetupFiles.remove(target)
        }
    }
}

extension SetupCommand {
    /// Makes the changes, all or nothing. The backups are saved first (a crash half-way can still be
    /// uninstalled) and the crontab is changed before any file (crontab is what refuses most: cron.deny, a
    /// full spool); a failure puts back the crontab, every file written and the previous backups, then throws.
    static func install(
        _ changes: [SetupChange], manifest: inout SetupManifest, facts: SetupFacts,
        output: CommandOutput
    ) throws(PlannerError) {
        let previous = manifest
        for change in changes {
            if manifest.entry(for: change.item.path) == nil {
                manifest.entries.append(
                    SetupManifest.Entry(
                        kind: change.item.kind, path: change.item.path,
                        before: change.current, after: change.next))
            } else {
                manifest.update(change.item.path, after: change.next)
            }
        }
        // Folders made for these files are removed again by --uninstall (when empty), or at once if this fails.
        var made: [String] = []
        for path in changes.filter({ $0.item.kind != .crontab }).map(\.target) + [manifest.folder + "/manifest"] {
            for folder in SetupFiles.missingParents(of: path) where !manifest.folders.contains(folder) {
                manifest.folders.append(folder)
                made.append(folder)
            }
        }
        // The user manager keeps the timer's last run (Persistent=true) beside the data: made for us, so
        // --uninstall removes it with the folders it needed.
        for timer in ["planner-refill.timer", SetupPlan.calendarTimer] where changes.contains(where: { $0.item.path.hasSuffix("/" + timer) }) {
            let stamp = Self.timerStamp(facts, timer: timer)
            if SetupFiles.read(stamp) == nil && !manifest.leftovers.contains(stamp) {
                manifest.leftovers.append(stamp)
                for folder in SetupFiles.missingParents(of: stamp) where !manifest.folders.contains(folder) {
                    manifest.folders.append(folder)
                }
            }
        }
        // The ticker's lock beside the database: made by the tickers setup starts, removed by --uninstall.
        let lock = facts.database + ".tick.lock"
        // So is the folder it watches for saved opens (removed only when empty: else it holds opens).
        for made in [lock, facts.database + ".opens"] where !SetupFiles.exists(made) && !manifest.leftovers.contains(made) {
            if changes.contains(where: { $0.item.path.hasSuffix("/planner-tick.desktop") }) { manifest.leftovers.append(made) }
        }
        // The calendar job's lock, the same way.
        let calendarLock = facts.database + ".calendar.lock"
        if changes.contains(where: { $0.item.content.contains(" calendar-sync ") }), !SetupFiles.exists(calendarLock),
            !manifest.leftovers.contains(calendarLock)
        {
            manifest.leftovers.append(calendarLock)
        }
        let todo = changes.filter { $0.current != $0.next }
        var done: [SetupChange] = []
        do {
            try manifest.save(to: manifest.folder)
            for change in todo.filter({ $0.item.kind == .crontab }) + todo.filter({ $0.item.kind != .crontab }) {
                try change.apply()
                done.append(change)
            }
        } catch {
            for change in done.reversed() { try? change.undo() }
            manifest.rollBack(to: previous)
            for folder in made.reversed() { rmdir(folder) }
            throw error
        }
        for change in changes {
            if change.current == change.next {
                output.line("unchanged \(change.shownPath)")
            } else {
                output.line("\(change.current == nil ? "created" : "changed") \(change.shownPath): \(change.item.why)")
            }
        }
    }
}
