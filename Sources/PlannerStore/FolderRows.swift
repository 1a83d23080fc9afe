import PlannerCore

/// The folders' bookkeeping rows a settings change forgets: another sync folder or calendar folder starts
/// afresh (`applyEvents`). The folders themselves are PlannerFolders'.
extension Transaction {
    /// A new sync folder: this device's events are all written there again, its files read from scratch.
    package func forgetSyncFolder() throws {
        try forgetPublished()
        try connection.execute("DELETE FROM sync_file")
        try connection.execute("UPDATE device SET out_seq = out_seq + 1, out_size = 0 WHERE is_self = 1")
    }

    /// Everything this device wrote to its file is to be written again (the file is gone, cut or replaced, or
    /// the folder is another): its own events and those it relays.
    package func forgetPublished() throws {
        try connection.execute("UPDATE event SET published_ms = NULL WHERE received_ms IS NULL AND published_ms IS NOT NULL")
        try connection.execute("UPDATE relay SET published_ms = NULL WHERE published_ms IS NOT NULL")
    }

    /// Forgets what passes recorded for `folder` (nil: every folder).
    package func forgetCalendarPass(_ folder: String?) throws {
        guard let folder else {
            try connection.execute("DELETE FROM calendar_pass")
            return
        }
        try connection.prepare("DELETE FROM calendar_pass WHERE folder = ?").run(.text(folder))
    }
}
