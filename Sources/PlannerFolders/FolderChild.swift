import CLinux
import Glibc
import PlannerSystem

/// Folder work done by a child process, so that a folder can never hold up the planner itself.
///
/// Why a process and not a thread: a write on a frozen or stalled file system sleeps uninterruptibly (D
/// state), and a process with such a thread cannot exit (the login's shell would wait on it) nor be ended
/// by SIGTERM. A child can be left behind: this process goes on, and exits, at the deadline.
///
/// Why two steps: the child first takes the folder's lock and looks (`observe`); the parent then reads the
/// database and decides what to write, knowing what the child saw (`decide`); the child does it (`act`).
/// Two planner processes thus still take turns, each deciding only once it holds the folder.
///
/// The child never touches SQLite (a connection must not cross a fork) and never prints: it does system
/// calls on the folder and says what happened as bytes (`Wire`). It is forked from a single-threaded
/// process, so what it runs is ordinary Swift. In a process of several threads (the tests), where a fork
/// is unsafe, `observe` runs in the caller's thread and the rest of the child's side (`serve`: sending what
/// it saw, the job, the answer, the hold until the hang-up) on a thread of its own, across the same socket
/// pair in the same frames. What a thread does not do: the fork, a deadline (a thread cannot be killed),
/// progress frames, the folder's guard of stuck children.
public enum FolderChild {
    public enum Outcome {
        /// What `act` returned; or nil when `decide` chose to do nothing (after `observe`'s bytes).
        case done(observed: [UInt8], acted: [UInt8]?)
        /// The child did not answer within this many milliseconds (a stalled file system, a lock held
        /// elsewhere): left behind. The wait is the one actually given: shorter after another folder stalled.
        case timedOut(milliseconds: Int64)
        /// No child could be made (fork or socketpair failed).
        case failed(String)

        /// Why the child brought nothing back, in the words every folder's message uses; nil when it finished.
        public var unfinished: String? {
            switch self {
            case .done: nil
            case .timedOut(let waited): "it did not answer within \(waited) ms: a stalled or frozen file system?"
            case .failed(let why): why
            }
        }
    }

    /// In the child: its end of the socket, for `progress` (called deep inside a folder's work). The child's
    /// own process state, set after the fork; the parent's deadline and stall memory are its run's
    /// (`FolderTiming`), and the children left behind below are the process's, whoever made them.
    nonisolated(unsafe) private static var childSocket: Int32 = -1
    nonisolated(unsafe) private static var lastProgress: Int64 = 0

    /// In the child, during long work: tells the parent it is moving (at most every 50 ms). A no-op in the parent.
    public static func progress() {
        guard childSocket >= 0 else { return }
        let now = SystemClock.monotonicMilliseconds()
        guard now - lastProgress >= 50 else { return }
        lastProgress = now
        var frame = Wire.Writer()
        frame.int(-1)
        _ = frame.bytes.withUnsafeBytes { Glibc.send(childSocket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Children that outlived their deadline (or the parent's short wait for their exit), each with a pidfd
    /// (-1 before Linux 5.3): reaped when they end (WNOHANG) at the next run, or, in the live ticker, as soon as
    /// their pidfd says they ended (`abandonedExits`), so none stays a zombie until its next folder work.
    nonisolated(unsafe) fileprivate static var abandoned: [(pid: pid_t, exit: Int32)] = []

    /// The pidfds of children left behind, readable once each has ended: a long-lived process polls them and
    /// then calls `reapAbandoned`.
    public static var abandonedExits: [Int32] { abandoned.map(\.exit).filter { $0 >= 0 } }

    /// One folder job: the child looks, this process decides what to do (nil: nothing), the child does it, and
    /// this process records the answer (`settle`) while the child still holds what it locked.
    public static func run(
        folder: String? = nil,
        timing: FolderTiming,
        observe: () -> [UInt8],
        decide: ([UInt8]) throws -> [UInt8]?,
        act: @escaping ([UInt8]) -> [UInt8],
        settle: ([UInt8]) throws -> Void = { _ in },
        release: @escaping () -> Void = {}
    ) throws -> Outcome {
        let child = Held(folder: folder, timing: timing, observe: observe, act: act, release: release)
        defer { child.hangUp() }
        guard case .done(let observed, _) = child.looked else { return child.looked }
        guard let job = try decide(observed) else { return child.looked }
        let outcome = child.finish(job)
        if case .done(_, let acted?) = outcome {
            try settle(acted)
            child.end()
        }
        return outcome
    }

    /// A child made for one folder job in two steps that may lie apart: it looks (`observe`) when made, and
    /// waits for its job (`act`) for as long as its parent lives, while the parent does other things in
    /// between (`open` commits its transaction): one fork, not one per step. The parent hands it its job with
    /// `finish` and always ends it with `end` or `hangUp` (no job: the child then exits unasked).
    public final class Held {
        /// What `observe` said (`.done(observed:, acted: nil)`), or why the child said nothing.
        public private(set) var looked: Outcome
        private var pid: pid_t = -1
        private var socket: Int32 = -1
        /// A process of several threads: the child's side is this thread (`serve`), which `hangUp` joins, and
        /// `release` then closes what the steps opened (a forked child's exit closes them).
        private var thread: pthread_t?
        /// Made as a thread (kept after `hangUp` joins it): no deadline, and nothing said stalled.
        private var threaded = false
        private var release: (() -> Void)?
        /// The child missed a deadline: it is not waited for again.
        private var stuck = false
        /// The folder the child touches: said stuck on its guard (`FolderGuard`) when the child is given up.
        private let folder: String?
        private let timing: FolderTiming

        /// Its deadline is always `timing`'s, never one of its own: the child's wait for a lock
        /// (`FolderTiming.lockWaitMilliseconds`, decided before the child exists) is half of that, so that the
        /// child answers "busy" before its parent gives up on it.
        /// `folder`: the folder the child touches: no child is made while an earlier one for that folder is stuck
        /// (`FolderGuard`), made by this process or any other.
        init(
            folder: String? = nil, timing: FolderTiming, observe: () -> [UInt8], act: @escaping ([UInt8]) -> [UInt8],
            release: @escaping () -> Void
        ) {
            self.folder = folder
            self.timing = timing
            // fork() is safe only in a single-threaded process (the planner and its ticker are): a process with
            // other threads (the test runner, in-process tests in parallel) could fork while one of them holds a
            // runtime lock the child then waits on forever.
            let forks = singleThreaded()
            if forks {
                reapAbandoned()
                if let folder, let why = FolderGuard.stuck(folder) {
                    looked = .failed(why)
                    return
                }
            }
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                looked = .failed("socketpair: \(String(cString: strerror(errno)))")
                return
            }
            guard forks else {
                // The steps on a thread, unprotected: observe here (it may not outlive this call), its bytes
                // sent by the thread like a child's. No deadline: a thread cannot be killed when it is missed.
                self.release = release
                let serving = Serving(fd: pair[1], observed: observe(), act: act)
                var thread = pthread_t()
                guard pthread_create(&thread, nil, Serving.main, Unmanaged.passRetained(serving).toOpaque()) == 0 else {
                    Unmanaged.passUnretained(serving).release()
                    close(pair[0])
                    close(pair[1])
                    looked = .failed("pthread_create failed")
                    return
                }
                self.thread = thread
                threaded = true
                socket = pair[0]
                looked = receive(socket, within: nil).map { .done(observed: $0, acted: nil) } ?? .failed("the folder thread said nothing")
                return
            }
            let pid = fork()
            if pid == 0 { FolderChild.child(pair, observe: observe, act: act) }
            if pid < 0 {
                let why = String(cString: strerror(errno))
                close(pair[0])
                close(pair[1])
                looked = .failed("fork: \(why)")
                return
            }
            close(pair[1])
            self.pid = pid
            socket = pair[0]
            let wait = timing.limit
            guard let observed = receive(socket, within: wait) else {
                looked = .timedOut(milliseconds: wait)
                giveUp()
                return
            }
            looked = .done(observed: observed, acted: nil)
        }

        /// How long to wait now (`FolderTiming.limit`); a thread, which cannot be killed, as long as it takes.
        private var limit: Int64? { threaded ? nil : timing.limit }

        /// Hands the child its job and waits for its answer. The child keeps the folder's lock until `end`
        /// (or until this object goes), so what the parent records of the answer is recorded under it.
        public func finish(_ job: [UInt8]) -> Outcome {
            guard case .done(let observed, _) = looked else { return looked }
            guard socket >= 0 else { return .failed("the folder child was already let go") }
            let wait = limit
            // The job within the wait too: a child stopped by another program (SIGSTOP) reads nothing, and a
            // job larger than the socket's buffer (a 60-day calendar's files) would block the send for as long.
            guard FolderChild.send(socket, job, within: wait), let acted = receive(socket, within: wait) else {
                giveUp()
                return wait.map { .timedOut(milliseconds: $0) } ?? .failed("the folder thread did not answer")
            }
            return .done(observed: observed, acted: acted)
        }

        /// The child missed its deadline: it is killed, not only left behind. One stopped (SIGSTOP from
        /// another program; at its very start it still held the caller's stdout and stderr, so `$(planner
        /// open)` waited for it) held this device's file's lock for as long as it stayed stopped, and a child
        /// in a killable wait on a stalled network mount lingered for the whole outage, one more per cron
        /// minute. One stuck in a frozen file system dies once it thaws. Whatever it was doing is the next
        /// run's to do again: a cut append starts a new file, a temporary file is removed.
        private func giveUp() {
            stuck = true
            // A thread that ended without answering did not stall on a folder (it is not waited on by time).
            if !threaded { timing.stalled() }
            if pid > 0 { kill(pid, SIGKILL) }
            // Said stuck only when the kill did not end it at once (a request the mount took holds it).
            if let folder, pid > 0 {
                usleep(1_000)
                FolderGuard.markStuck(folder, pid: pid)
            }
        }

        /// The child's work is recorded: it lets go of the folder and exits.
        public func end() { hangUp() }

        /// Done with the child (its work recorded, or no job after all): its end of the socket closes and it
        /// exits. It is given that moment (at most 5 ms) and reaped, unless it already missed a deadline
        /// (stuck on a frozen folder): a child left behind is reaped when it ends, and in the live ticker its
        /// end wakes the loop, whose pass made the next child, which was left behind in turn (a ticker with a
        /// sync folder ran dozens of passes after each change).
        public func hangUp() {
            if socket >= 0 { close(socket) }
            socket = -1
            // The thread's side sees the socket close and returns; what its steps opened is closed after.
            if let thread { pthread_join(thread, nil) }
            thread = nil
            release?()
            release = nil
            guard pid > 0 else { return }
            var tries = stuck ? 50 : 0
            var reaped = waitpid(pid, nil, WNOHANG) != 0
            while !reaped, tries < 50 {
                usleep(100)
                tries += 1
                reaped = waitpid(pid, nil, WNOHANG) != 0
            }
            if !reaped { FolderChild.abandoned.append((pid, clinux_pidfd_open(pid))) }
            pid = -1
        }

        /// Release is explicit (`end`, `hangUp`): a child dropped without it is a missing release, which stops
        /// a debug build (the tests). A release build still lets go here, so that a long-lived ticker never
        /// keeps a folder locked for days.
        deinit {
            assert(
                pid <= 0 && socket < 0 && release == nil && thread == nil, "a folder child was dropped without hangUp: its folder's lock stays held")
            hangUp()
        }
    }

    /// Makes a `Held` child: it runs `observe` at once and `act` when its job comes.
    public static func hold(
        folder: String? = nil, timing: FolderTiming, observe: () -> [UInt8], act: @escaping ([UInt8]) -> [UInt8],
        release: @escaping () -> Void = {}
    ) -> Held {
        Held(folder: folder, timing: timing, observe: observe, act: act, release: release)
    }

    /// The child's whole life: it looks, answers, does its job, answers, and holds on until the parent hangs up.
    private static func child(_ pair: [Int32], observe: () -> [UInt8], act: ([UInt8]) -> [UInt8]) -> Never {
        // Nothing of the parent's signal handling (a signalfd's blocked set, an ignored SIGPIPE) is wanted;
        // a parent gone ends it at its next message.
        close(pair[0])
        // Nothing of the parent's is kept open: its stdout and stderr (a `$(planner open)` or a test reading
        // them to their end would wait for this child), the ticker's lock (a new ticker could not start while
        // a child is stuck), the database. Only the socket, as descriptor 3.
        let null = Glibc.open("/dev/null", O_RDWR)
        if null >= 0 { for fd: Int32 in 0...2 { dup2(null, fd) } }
        if pair[1] != 3 { dup2(pair[1], 3) }
        clinux_close_from(4)
        childSocket = 3
        lastProgress = SystemClock.monotonicMilliseconds()
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
        signal(SIGPIPE, SIG_DFL)
        serve(3, observed: observe(), act: act)
        _exit(0)
    }

    /// The child's side of the socket, forked or on a thread: sends what it observed, runs its job, sends the
    /// answer, then holds the folder's lock until the parent has recorded it (its end of the socket closes):
    /// another planner process then finds the file as the database says.
    private static func serve(_ fd: Int32, observed: [UInt8], act: ([UInt8]) -> [UInt8]) {
        guard send(fd, observed), let job = receive(fd, within: nil) else { return }
        if send(fd, act(job)) { _ = receive(fd, within: nil) }
    }

    /// What the thread that stands in for a child runs with (a process of several threads: the tests).
    private final class Serving: @unchecked Sendable {  // handed from the making thread to the serving one
        let fd: Int32
        let observed: [UInt8]
        let act: ([UInt8]) -> [UInt8]

        init(fd: Int32, observed: [UInt8], act: @escaping ([UInt8]) -> [UInt8]) { (self.fd, self.observed, self.act) = (fd, observed, act) }

        static let main: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
            let serving = Unmanaged<Serving>.fromOpaque(context!).takeRetainedValue()
            FolderChild.serve(serving.fd, observed: serving.observed, act: serving.act)
            close(serving.fd)
            return nil
        }
    }

    /// One thread in this process (/proc/self/status "Threads:").
    public static func singleThreaded() -> Bool {
        let fd = Glibc.open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = Glibc.read(fd, &buffer, buffer.count)
        guard n > 0 else { return false }
        return threadCount(in: buffer[..<n]) == 1
    }

    /// The number on the "Threads:" line of /proc/PID/status, read as bytes (splitting the text into String
    /// lines cost more than the rest of the look, twice per `open` with a calendar folder).
    static func threadCount(in status: ArraySlice<UInt8>) -> Int? {
        ProcFile.firstNumber(of: "Threads:", in: status).map { Int($0) }
    }

    public static func reapAbandoned() {
        abandoned.removeAll { child in
            guard waitpid(child.pid, nil, WNOHANG) != 0 else { return false }
            if child.exit >= 0 { close(child.exit) }
            return true
        }
    }

    /// One message: its length (8 bytes, little-endian), then its bytes. With `limit` (the parent's side),
    /// false once `limit` milliseconds pass with the other side taking nothing (a stopped child); without
    /// one (the child's side), as long as it takes.
    fileprivate static func send(_ fd: Int32, _ bytes: [UInt8], within limit: Int64? = nil) -> Bool {
        var message = Wire.Writer()
        message.int(Int64(bytes.count))
        var rest = (message.bytes + bytes)[...]
        var end = limit.map { SystemClock.monotonicMilliseconds() + $0 }
        let flags = Int32(MSG_NOSIGNAL) | (limit == nil ? 0 : Int32(MSG_DONTWAIT))
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, flags) }
            if n < 0 && errno == EINTR { continue }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK, let deadline = end {
                let left = deadline - SystemClock.monotonicMilliseconds()
                guard left > 0 else { return false }
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, Int32(min(left, 60_000)))
                continue
            }
            guard n > 0 else { return false }
            rest = rest.dropFirst(n)
            // Progress: the child is reading, so the wait starts again (as a progress frame restarts a receive).
            end = limit.map { SystemClock.monotonicMilliseconds() + $0 }
        }
        return true
    }

    /// One message, or nil when `limit` milliseconds pass with no sign of life (nil: wait as long as it
    /// takes) or when the other side is gone. A progress frame (length -1) restarts the wait. The length
    /// comes first, so the message is read straight into an array of its size: a 60-day calendar's listing
    /// grown chunk by chunk would be shifted and copied again for each.
    fileprivate static func receive(_ fd: Int32, within limit: Int64?) -> [UInt8]? {
        var end = limit.map { SystemClock.monotonicMilliseconds() + $0 }
        var header = [UInt8](repeating: 0, count: 8)
        while true {
            guard header.withUnsafeMutableBytes({ fill(fd, $0, until: end) }) else { return nil }
            var reader = Wire.Reader(header)
            // A length no message of ours reaches (1 GiB) is a broken child, not a message.
            guard let n = reader.int(), n >= -1, n < 1 << 30 else { return nil }
            if n == -1 {
                end = limit.map { SystemClock.monotonicMilliseconds() + $0 }
                continue
            }
            // Not zeroed first: every byte is the socket's (or the array is given up).
            var complete = false
            let message = [UInt8](unsafeUninitializedCapacity: Int(n)) { buffer, count in
                complete = fill(fd, UnsafeMutableRawBufferPointer(buffer), until: end)
                count = complete ? Int(n) : 0
            }
            return complete ? message : nil
        }
    }

    /// Fills `bytes` from the socket; false when `end` (monotonic milliseconds; nil: no end) passes first or
    /// the other side is gone.
    private static func fill(_ fd: Int32, _ bytes: UnsafeMutableRawBufferPointer, until end: Int64?) -> Bool {
        var got = 0
        while got < bytes.count {
            if let end {
                let left = end - SystemClock.monotonicMilliseconds()
                guard left > 0 else { return false }
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let r = poll(&p, 1, Int32(min(left, 60_000)))
                if r < 0 && errno == EINTR { continue }
                guard r > 0 else { continue }
            }
            let n = recv(fd, bytes.baseAddress! + got, bytes.count - got, 0)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            got += n
        }
        return true
    }
}

/// A small binary form for what crosses between the planner and its folder child: integers and byte strings.
public enum Wire {
    public struct Writer {
        public var bytes: [UInt8] = []
        public init() {}
        public mutating func int(_ value: Int64) {
            withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        }
        /// A message of whole numbers only.
        public static func ints(_ values: [Int64]) -> [UInt8] {
            var w = Writer()
            for value in values { w.int(value) }
            return w.bytes
        }
        public mutating func data(_ value: [UInt8]) {
            int(Int64(value.count))
            bytes += value
        }
        /// Straight from the string's bytes: no array made on the way (a calendar listing writes ~1,100 names).
        public mutating func text(_ value: String) {
            int(Int64(value.utf8.count))
            bytes += value.utf8
        }
    }

    public struct Reader {
        let bytes: [UInt8]
        var at = 0
        public init(_ bytes: [UInt8]) { self.bytes = bytes }
        public var atEnd: Bool { at >= bytes.count }
        public mutating func int() -> Int64? {
            guard at + 8 <= bytes.count else { return nil }
            var value: Int64 = 0
            for i in 0..<8 { value |= Int64(bytes[at + i]) << (8 * i) }
            at += 8
            return value
        }
        public mutating func data() -> [UInt8]? {
            guard let n = int(), n >= 0, at + Int(n) <= bytes.count else { return nil }
            defer { at += Int(n) }
            return Array(bytes[at..<at + Int(n)])
        }
        /// Decoded in place: no array made on the way (a 60-day calendar pass reads hundreds of names and digests).
        public mutating func text() -> String? {
            guard let n = int(), n >= 0, at + Int(n) <= bytes.count else { return nil }
            defer { at += Int(n) }
            return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[at..<at + Int(n)]), as: UTF8.self) }
        }
        /// Where the next byte string is, skipped without a copy (read it with `Reader(bytes[range])`).
        public mutating func dataRange() -> Range<Int>? {
            guard let n = int(), n >= 0, at + Int(n) <= bytes.count else { return nil }
            defer { at += Int(n) }
            return at..<at + Int(n)
        }
        public var all: [UInt8] { bytes }
    }
}
