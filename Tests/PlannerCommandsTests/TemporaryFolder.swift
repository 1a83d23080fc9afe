import Glibc

/// A new private folder for one test (a fake home, a PATH folder), under $TMPDIR or /tmp.
func temporaryFolder() -> String {
    let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array("\(base)/planner-commands-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot create a folder in \(base)") }
    return String(cString: made)
}

/// Writes `text` to `path` with `mode`.
func writeFile(_ path: String, _ text: String, mode: mode_t = 0o644) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
    precondition(fd >= 0, "cannot create \(path)")
    _ = text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    fchmod(fd, mode)
    close(fd)
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// The names in a folder and every folder below it, as paths relative to it, sorted.
func filesBelow(_ folder: String) -> [String] {
    guard let dir = opendir(folder) else { return [] }
    defer { closedir(dir) }
    var found: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard name != ".", name != ".." else { continue }
        found.append(name)
        if entry.pointee.d_type == UInt8(DT_DIR) { found += filesBelow(folder + "/" + name).map { name + "/" + $0 } }
    }
    return found.sorted()
}

struct MakeFolderError: Error {}

func makeFolder(_ path: String) throws {
    guard mkdir(path, 0o700) == 0 else { throw MakeFolderError() }
}

/// A file's text, or nil when it cannot be read.
func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&buffer, 1, buffer.count, file)
        bytes += buffer[0..<n]
        if n < buffer.count { break }
    }
    return String(decoding: bytes, as: UTF8.self)
}
