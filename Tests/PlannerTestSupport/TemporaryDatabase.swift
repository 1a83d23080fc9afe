import Glibc

/// A database path in a new private folder under $TMPDIR (else /tmp): every test gets its own plan.
public func temporaryDatabasePath() -> String {
    let base = Environment.temporaryFolder
    var template = Array("\(base)/planner-test-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot create a folder in \(base): \(String(cString: strerror(errno)))") }
    return String(cString: made) + "/planner.db"
}

private enum Environment {
    static var temporaryFolder: String {
        guard let tmp = getenv("TMPDIR"), tmp.pointee != 0 else { return "/tmp" }
        return String(cString: tmp)
    }
}
