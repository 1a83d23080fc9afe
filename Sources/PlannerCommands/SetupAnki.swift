import Glibc
import PlannerCore
import PlannerFolders
import PlannerStore

/// `planner setup` and Anki: the collections of Anki's profiles on this computer, and `anki-collection`
/// set at `--install` when there is exactly one (a choice among several is the user's).
enum SetupAnki {
    /// Where Anki keeps its profiles: its own folder (`$XDG_DATA_HOME/Anki2`, else ~/.local/share/Anki2)
    /// and the Flatpak's.
    static func folders(_ facts: SetupFacts) -> [String] {
        [facts.dataHome + "/Anki2", facts.home + "/.var/app/net.ankiweb.Anki/data/Anki2"]
    }

    /// Every profile's `collection.anki2` (a regular file), sorted.
    static func collections(_ facts: SetupFacts) -> [String] {
        var found: [String] = []
        for folder in folders(facts) {
            guard let dir = opendir(folder) else { continue }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                // addons21 and the like hold no collection; a profile is any folder with one.
                guard !name.hasPrefix(".") else { continue }
                let path = folder + "/" + name + "/collection.anki2"
                var info = stat()
                if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG { found.append(path) }
            }
        }
        return found.sorted()
    }

    /// One line on what setup found (nil: the setting is already made and still there).
    static func line(_ facts: SetupFacts, current: String?, install: Bool) -> String? {
        let found = collections(facts)
        if let current, !current.isEmpty {
            return found.contains(current) || access(current, F_OK) == 0
                ? nil
                : "anki-collection is \(current), which is not there: planner config set anki-collection FILE (found: \(found.isEmpty ? "none" : found.joined(separator: ", ")))"
        }
        switch found.count {
        case 0:
            return
                "Anki: no profile found under \(folders(facts).joined(separator: " or ")): if Anki keeps its collection elsewhere, planner config set anki-collection FILE"
        case 1:
            return install ? nil : "Anki: found \(found[0]); --install sets anki-collection to it (a card answered there closes the day)"
        default:
            return
                "Anki: found \(found.count) profiles (\(found.joined(separator: ", "))): choose the one you study in with planner config set anki-collection FILE"
        }
    }

    /// At `--install`, after the database is made: sets `anki-collection` when it is empty and one profile
    /// has a collection. Returns what it did, for the output.
    static func adopt(_ ctx: RunContext, _ facts: SetupFacts, now: String?) throws(PlannerError) -> String? {
        let current = try ConfigCommand.get(ctx, db: facts.database, now: now, key: SettingKey.ankiCollection.rawValue)
        let found = collections(facts)
        guard current.isEmpty, found.count == 1 else { return line(facts, current: current, install: true) }
        _ = try ConfigCommand.set(ctx, db: facts.database, now: now, pairs: [SettingKey.ankiCollection.rawValue, found[0]])
        return "anki-collection: \(found[0]) (a card answered there closes the day; planner config reset anki-collection stops it)"
    }
}
