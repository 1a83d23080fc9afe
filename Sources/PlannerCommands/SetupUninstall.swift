import Glibc
import PlannerCore

extension SetupCommand {
    /// Puts back what --install changed, file by file: what is as --install left it gets its backup back,
    /// a block edited since loses only the planner's lines, anything else edited since is left.
    static func uninstall(_ manifest: inout SetupManifest, _ ctx: RunContext, facts: SetupFacts) throws(PlannerError) {
        let output = ctx.output
        let crontab = Crontab(run: ctx.runProgram)
        guard !manifest.entries.isEmpty else {
            // An install killed before its record listed anything may still have left files in it.
            if !manifest.folder.isEmpty {
                SetupFiles.removeOwnLeftovers(in: manifest.folder)
                rmdir(manifest.folder)
            }
            output.line("nothing to uninstall: planner setup --install has not been run (or was undone)")
            return
        }
        let systemdUnits = manifest.entries.contains(where: { $0.path.hasSuffix("/planner-refill.timer") })
        // The calendar job (its unit, or its cron line): the phone's alarms go too, once the ticker has stopped.
        let calendarJob = manifest.entries.contains { $0.path.hasSuffix("/" + SetupPlan.calendarService) || $0.after.contains(" calendar-sync ") }
        if systemdUnits {
            _ = ctx.runProgram(["systemctl", "--user", "disable", "--now", "planner-refill.timer", "planner-tick.service"])
        }
        if manifest.entries.contains(where: { $0.path.hasSuffix("/" + SetupPlan.calendarPath) }) {
            _ = ctx.runProgram(["systemctl", "--user", "disable", "--now", SetupPlan.calendarTimer, SetupPlan.calendarPath])
        }
        for entry in manifest.entries.reversed() {
            let current = entry.kind == .crontab ? crontab.read() : SetupFiles.read(entry.path)
            if current == entry.before && entry.before != entry.after { continue }  // never changed (a failed install)
            if current == entry.after {
                if entry.kind == .crontab {
                    try crontab.set(entry.before)
                } else if let before = entry.before {
                    try SetupFiles.write(try SetupFiles.editTarget(entry.path), before)
                } else {
                    try SetupFiles.remove(entry.path)
                }
                output.line("\(entry.before == nil ? "removed" : "restored") \(entry.path)")
            } else if entry.kind != .file, let current, let without = SetupPlan.withoutBlock(current) {
                // Edited since: take out only the planner's block, keep the user's changes.
                if entry.kind == .crontab { try crontab.set(without) } else { try SetupFiles.write(try SetupFiles.editTarget(entry.path), without) }
                output.line("removed the planner block from \(entry.path) (edited since --install: the rest is kept)")
            } else if current != nil {
                output.line("left \(entry.path): edited since --install")
            }
        }
        if systemdUnits {
            _ = ctx.runProgram(["systemctl", "--user", "daemon-reload"])
        }
        // The ticker stops first (its lock, below): a running one would write the calendar folder again.
        for leftover in manifest.leftovers where !leftover.hasSuffix(".calendar.lock") {
            if leftover.hasSuffix(".tick.lock") {
                if !TickerStop.stopAndRemoveLock(leftover) {
                    output.line("left \(leftover): a ticker still holds it (stop it, then remove the file)")
                }
            } else if leftover.hasSuffix(".opens") {
                rmdir(leftover)
            } else {
                unlink(leftover)
            }
        }
        if calendarJob { emptyCalendar(ctx, facts: facts) }
        for leftover in manifest.leftovers where leftover.hasSuffix(".calendar.lock") { unlink(leftover) }
        try manifest.remove()
        for folder in manifest.folders.reversed() { rmdir(folder) }
        // Beside the database as the planner resolves it (a link to the database is followed).
        let resolved = realpath(facts.database, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        }
        removeAnkiCopy((resolved ?? facts.database) + ".anki-copy", output: output)
        output.line("the database is kept")
    }

    /// The private copy of the Anki collection the planner reads (`PlannerDatabase.ankiCopyFolder`), which
    /// can be as large as the collection: removed with the rest of what setup's planner made. Only the
    /// names the planner writes there, under the folder's lock (a copy in progress keeps it); a file of
    /// anyone else's keeps the folder.
    static func removeAnkiCopy(_ folder: String, output: CommandOutput) {
        var info = stat()
        guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else { return }
        let lock = open(folder + "/lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        if lock >= 0 {
            defer { close(lock) }
            guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
                output.line("left \(folder): the Anki collection is being copied there now (remove it once that is done)")
                return
            }
        }
        let names = ["collection.anki2", "collection.anki2-wal", "collection.anki2-shm", "collection.anki2-journal", "copied-from"]
        for name in names + names.map { $0 + ".planner-tmp" } + ["lock"] { unlink(folder + "/" + name) }
        if rmdir(folder) == 0 {
            output.line("removed \(folder): the planner's private copy of the Anki collection")
        } else {
            output.line("left \(folder): it holds files the planner did not write")
        }
    }
}
