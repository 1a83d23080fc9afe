import Glibc
import PlannerCore

/// What --install changed, so that --uninstall can put back exactly that: for each path, whether it existed,
/// its content before (the backup) and after.
struct SetupManifest {
    struct Entry {
        var kind: SetupItem.Kind
        var path: String
        var before: String?
        var after: String
    }
    var entries: [Entry] = []
    /// Folders --install created, outermost first.
    var folders: [String] = []
    /// Files the user manager makes for the installed units (the timer's stamp), removed by --uninstall.
    var leftovers: [String] = []
    var folder = ""

    func entry(for path: String) -> Entry? { entries.first { $0.path == path } }

    mutating func update(_ path: String, after: String) {
        if let i = entries.firstIndex(where: { $0.path == path }) { entries[i].after = after }
    }

    static func load(from folder: String) -> SetupManifest {
        var manifest = SetupManifest(folder: folder)
        guard let text = SetupFiles.read(folder + "/manifest") else { return manifest }
        for (i, line) in text.split(separator: "\n").enumerated() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if fields.count == 2 && fields[0] == "folder" {
                manifest.folders.append(fields[1])
                continue
            }
            if fields.count == 2 && fields[0] == "leftover" {
                manifest.leftovers.append(fields[1])
                continue
            }
            guard fields.count == 3, let after = SetupFiles.read("\(folder)/\(i).after") else { continue }
            let kind: SetupItem.Kind = fields[0] == "block" ? .block : fields[0] == "crontab" ? .crontab : .file
            let before = fields[2] == "1" ? SetupFiles.read("\(folder)/\(i).before") : nil
            manifest.entries.append(Entry(kind: kind, path: fields[1], before: before, after: after))
        }
        return manifest
    }

    func save(to folder: String) throws(PlannerError) {
        var lines = ""
        for (i, e) in entries.enumerated() {
            let kind = e.kind == .block ? "block" : e.kind == .crontab ? "crontab" : "file"
            lines += "\(kind)\t\(e.path)\t\(e.before == nil ? "0" : "1")\n"
            if let before = e.before { try SetupFiles.write("\(folder)/\(i).before", before, mode: 0o600) }
            try SetupFiles.write("\(folder)/\(i).after", e.after, mode: 0o600)
        }
        for f in folders { lines += "folder\t\(f)\n" }
        for f in leftovers { lines += "leftover\t\(f)\n" }
        try SetupFiles.write(folder + "/manifest", lines, mode: 0o600)
    }

    func remove() throws(PlannerError) {
        for i in entries.indices {
            try SetupFiles.remove("\(folder)/\(i).before")
            try SetupFiles.remove("\(folder)/\(i).after")
        }
        try SetupFiles.remove(folder + "/manifest")
        // What a run killed while saving this record left: its temporaries, and backups written before the
        // manifest that would have listed them.
        SetupFiles.removeOwnLeftovers(in: folder)
        rmdir(folder)
    }
}

extension SetupManifest {
    /// Puts the saved manifest back to `previous` after an install that failed: the backups it added are
    /// removed, and with no earlier install, the manifest and its folder too.
    func rollBack(to previous: SetupManifest) {
        for i in previous.entries.count..<max(entries.count, previous.entries.count) {
            unlink("\(folder)/\(i).before")
            unlink("\(folder)/\(i).after")
        }
        if previous.entries.isEmpty && previous.folders.isEmpty && previous.leftovers.isEmpty {
            unlink(folder + "/manifest")
            rmdir(folder)
        } else {
            try? previous.save(to: folder)
        }
    }
}
