import Glibc

// TEMPORARY (issue 20, branch runtime): stands in for the lead's inbox until the merge, which deletes this
// file; the ticker watches the folder this returns.
extension PlannerDatabase {
    /// The folder changes from outside the process wait in until a write applies them (created 0700 if missing).
    public func inboxFolder() -> String {
        let folder = OpenSpool.folder(of: resolvedPath)
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { return folder }
        return folder
    }
}
