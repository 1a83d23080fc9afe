import Glibc

/// Where a database's warnings go: something is wrong but the command can still do its job (a stored setting
/// it cannot use, a folder that cannot be written now). Each message once per sink: a command's run says it
/// once on stderr, a live ticker once in its log, and two devices of one in-process test each say their own.
/// Given to the database by whoever opens it (`RunContext.warnings`), never a global.
public final class Warnings: @unchecked Sendable {
    private let sink: (String) -> Void
    private var said: Set<String> = []
    /// `said` under a lock: a sink may be shared by threads (in-process tests run in parallel).
    private let lock: UnsafeMutablePointer<pthread_mutex_t>

    /// `sink` gets each message the first time it is said. The default says nothing (unit tests).
    public init(_ sink: @escaping (String) -> Void = { _ in }) {
        self.sink = sink
        lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Says `message` unless this sink said it before.
    public func once(_ message: String) {
        pthread_mutex_lock(lock)
        let first = said.insert(message).inserted
        pthread_mutex_unlock(lock)
        if first { sink(message) }
    }
}
