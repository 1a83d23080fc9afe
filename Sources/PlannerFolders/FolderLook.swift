import Glibc
import PlannerStore
import PlannerSystem

/// Whether a folder another program keeps (the sync folder, the calendar folder) is there, asked of a
/// folder child: `status` shows what the database knows and never waits on a stalled network mount for
/// longer than the folder deadline (a `stat` of such a mount in the command's own process waited as long
/// as the mount did, unkillable).
enum FolderLook {
    enum State: Equatable {
        case folder
        /// Missing, or not a folder.
        case missing
        /// The child brought nothing back: why, in the words every folder's message uses.
        case notAnswering(String)
    }

    static func look(_ folder: String, timing: FolderTiming) -> State {
        let outcome: FolderChild.Outcome
        do {
            outcome = try FolderChild.run(
                folder: folder, timing: timing,
                observe: {
                    var info = stat()
                    var answer = Wire.Writer()
                    answer.int(stat(folder, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? 1 : 0)
                    return answer.bytes
                }, decide: { _ in nil }, act: { _ in [] })
        } catch {
            return .notAnswering("\(error)")
        }
        if let why = outcome.unfinished { return .notAnswering(why) }
        guard case .done(let observed, _) = outcome else { return .notAnswering("it said nothing") }
        var r = Wire.Reader(observed)
        return r.int() == 1 ? .folder : .missing
    }
}
