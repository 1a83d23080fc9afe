import Glibc
import PlannerCore
import PlannerSystem

/// The few file and process operations `planner setup` needs, without Foundation (it would cost every
/// command its start-up).
enum SetupFiles {
    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n > 0 { bytes += buffer[0..<n] }
            if n < buffer.count { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Where an edit of `path` goes: the path itself, or for a symbolic link (a dotfiles repository's) the file
    /// it finally names, so the link stays as it is. Refused: a link to nothing (it would become a file), and
    /// what is not the user's own regular file (writing it would take it over).
    static func editTarget(_ path: String) throws(PlannerError) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return path }
        var target = path
        if info.st_mode & S_IFMT == S_IFLNK {
            guard let resolved = realpath(path, nil) else {
                let why = errno == ELOOP ? "a loop of symbolic links: fix or remove it"
                    : "a symbolic link to \(linkText(path)), which does not exist: create that file or remove the link"
                throw .usage("\(path) is \(why), then run planner setup again")
            }
            target = String(cString: resolved)
            free(resolved)
            guard stat(target, &info) == 0 else { throw .io("cannot read \(target): \(String(cString: strerror(errno)))") }
        }
        let named = target == path ? path : "\(path) (a link to \(target))"
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .io("\(named) is not a regular file: planner setup only edits files; move it away or edit it by hand")
        }
        guard info.st_uid == geteuid() else {
            throw .io("\(named) belongs to another user (uid \(info.st_uid)): planner setup does not edit it; add the planner's lines by hand")
        }
        return target
    }

    /// What a symbolic link holds, as written.
    static func linkText(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        return n < 0 ? "?" : String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The folders of `path`'s parent that do not exist yet, outermost first.
    static func missingParents(of path: String) -> [String] {
        var prefix = "", missing: [String] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true).dropLast() {
            prefix += "/" + part
            if !exists(prefix) { missing.append(prefix) }
        }
        return missing
    }

    /// Creates the missing folders of `path`'s parent (0755, as ~/.config and ~/.local are).
    static func makeParent(of path: String) throws(PlannerError) {
        var prefix = ""
        for part in path.split(separator: "/", omittingEmptySubsequences: true).dropLast() {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw .io("cannot create the folder \(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Writes `content` through a temporary file and a rename: a crash leaves the old file or the new one.
    /// An existing file keeps its mode; a new one gets `mode`.
    static func write(_ path: String, _ content: String, mode: mode_t = 0o644) throws(PlannerError) {
        try makeParent(of: path)
        var info = stat()
        let finalMode = stat(path, &info) == 0 ? info.st_mode & 0o7777 : mode
        let temporary = path + ".planner-setup.tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, finalMode)
        guard fd >= 0 else { throw .io("cannot write \(path): \(String(cString: strerror(errno)))") }
        let bytes = Array(content.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let why = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw .io("cannot write \(path): \(why)")
            }
            offset += n
        }
        fchmod(fd, finalMode)
        guard fsync(fd) == 0, close(fd) == 0, rename(temporary, path) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temporary)
            throw .io("cannot write \(path): \(why)")
        }
    }

    static func remove(_ path: String) throws(PlannerError) {
        if unlink(path) != 0 && errno != ENOENT { throw .io("cannot remove \(path): \(String(cString: strerror(errno)))") }
    }

    /// Runs a program (no shell) with `input` on its stdin; its exit status and stdout, or nil when it
    /// cannot be started. Its stderr goes to ours only when `quiet` is false, into the output with `mergeErrors`.
    static func run(_ arguments: [String], input: String? = nil, quiet: Bool = true,
                    mergeErrors: Bool = false) -> (status: Int32, output: String)? {
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        if mergeErrors {
            posix_spawn_file_actions_adddup2(&actions, fromChild[1], 2)
        } else if quiet {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard rc == 0 else {
            close(toChild[1])
            close(fromChild[0])
            return nil
        }
        // The inputs here are a crontab: far below a pipe's buffer, so writing first cannot deadlock.
        if let input {
            let bytes = Array(input.utf8)
            _ = bytes.withUnsafeBytes { Glibc.write(toChild[1], $0.baseAddress, $0.count) }
        }
        close(toChild[1])
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = Glibc.read(fromChild[0], &buffer, buffer.count)
            if n > 0 { output += buffer[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        close(fromChild[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, String(decoding: output, as: UTF8.self))
    }

    /// Whether `name` is a program on PATH.
    static func onPath(_ name: String) -> Bool {
        for dir in (Environment.get("PATH") ?? "/usr/bin:/bin").split(separator: ":") where access("\(dir)/\(name)", X_OK) == 0 {
            return true
        }
        return false
    }
}
