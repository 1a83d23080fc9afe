import CSQLite

/// A second connection to a database, in this process, holding its write lock the way a `sqlite3` shell
/// in `BEGIN IMMEDIATE` would, until `release()`.
final class HeldDatabase {
    private var connection: OpaquePointer?

    init(path: String) throws {
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
            sqlite3_exec(connection, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK
        else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(connection)
            throw HeldDatabaseError(message: message)
        }
    }

    func release() {
        guard let connection else { return }
        sqlite3_exec(connection, "COMMIT", nil, nil, nil)
        sqlite3_close(connection)
        self.connection = nil
    }

    deinit { release() }
}

struct HeldDatabaseError: Error {
    var message: String
}
