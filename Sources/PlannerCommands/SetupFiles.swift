import Glibc
import PlannerCore

/// The few file operations `planner setup` needs, without Foundation (it would cost every command its
/// start-up). The programs it runs go through the context's `ProgramRunner`.
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
                let why =
                    errno == ELOOP
                    ? "a loop of symbolic links: fix or remove it"
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
        var prefix = ""
        var missing: [String] = []
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

    static let temporarySuffix = ".planner-setup.tmp"

    /// Removes the temporary files `write` leaves when killed, beside each path and beside the file a link
    /// names: only regular files of this user. What was removed.
    static func removeTemporaries(besides paths: [String]) -> [String] {
        var removed: [String] = []
        var seen: Set<String> = []
        for path in paths {
            var candidates = [path]
            if let resolved = realpath(path, nil) {
                candidates.append(String(cString: resolved))
                free(resolved)
            }
            for candidate in candidates where seen.insert(candidate).inserted {
                let temporary = candidate + temporarySuffix
                var info = stat()
                guard lstat(temporary, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { continue }
                if unlink(temporary) == 0 { removed.append(temporary) }
            }
        }
        return removed
    }

    /// In setup's own record folder: removes the files only setup makes there and no manifest lists any
    /// more (`N.before`, `N.after`, `manifest`, and their temporaries), regular files of this user only.
    static func removeOwnLeftovers(in folder: String) {
        guard let dir = opendir(folder) else { return }
        defer { closedir(dir) }
        func isOwn(_ name: String) -> Bool {
            let base = name.hasSuffix(temporarySuffix) ? String(name.dropLast(temporarySuffix.count)) : name
            if base == "manifest" { return true }
            let parts = base.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 2 && !parts[0].isEmpty && parts[0].utf8.allSatisfy { (0x30...0x39).contains($0) }
                && (parts[1] == "before" || parts[1] == "after")
        }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if isOwn(name) { names.append(name) }
        }
        for name in names {
            var info = stat()
            let path = folder + "/" + name
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { continue }
            unlink(path)
        }
    }

    /// Writes `content` through a temporary file and a rename: a crash leaves the old file or the new one.
    /// An existing file keeps its mode; a new one gets `mode`.
    static func write(_ path: String, _ content: String, mode: mode_t = 0o644) throws(PlannerError) {
        try makeParent(of: path)
        var info = stat()
        let finalMode = stat(path, &info) == 0 ? info.st_mode & 0o7777 : mode
        let temporary = path + temporarySuffix
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

    /// Whether `name` is a program in one of `path`'s folders (PATH).
    static func onPath(_ name: String, path: String?) -> Bool {
        for dir in (path ?? "/usr/bin:/bin").split(separator: ":") where access("\(dir)/\(name)", X_OK) == 0 {
            return true
        }
        return false
    }
}
