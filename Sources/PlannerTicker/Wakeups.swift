import CLinux
import Glibc
import PlannerCore
import PlannerFolders
import PlannerSystem

/// What the loop waits on: `Wakeups` (file descriptors), or in a test a fake that moves a fixed clock.
public protocol TickerWakeups: AnyObject {
    /// Wakes at `instant` (on the timer's clock, whose time is `now`); nil: nothing to wake for.
    func arm(at instant: Instant?, now: Instant)
    /// Blocks until something happens; `pollEvery` (ms, -1: never) bounds the wait.
    func wait(children: [Int32], pollEvery: Int32) -> Result<Wakeups.Events, PlannerError>
    /// Watches `folder` (nil: none) for other devices' files: the sync folder setting as it is now;
    /// `ownDevice` is this device's id, whose own appends are not news.
    func watchSyncFolder(_ folder: String?, ownDevice: String?)
    /// Watches `folder` (nil: none) for a day ticked off on a phone: the calendar-folder setting as it is now.
    func watchCalendarFolder(_ folder: String?)
    /// Watches Anki's collection `file` (nil: none) for a card answered: the anki-collection setting as it is
    /// now. True when the watch is new: what changed before it was set is not seen, so it is read again.
    @discardableResult func watchAnkiCollection(_ file: String?) -> Bool
}

extension TickerWakeups {
    public func watchSyncFolder(_ folder: String?, ownDevice: String?) {}
    public func watchCalendarFolder(_ folder: String?) {}
    public func watchAnkiCollection(_ file: String?) -> Bool { false }
}

/// What the ticker sleeps on, as file descriptors waited on with poll(2) — no polling loop:
/// - a CLOCK_REALTIME timerfd armed at the next thing to do (a request's time, a retry, a child's
///   deadline), with TFD_TIMER_CANCEL_ON_SET so a clock change (or a resume that steps the clock) wakes
///   it at once instead of after a stale sleep;
/// - inotify on the database's folder, for writes by `open`, `refill` and `add` and for WAL files
///   deleted or replaced behind SQLite's back, and on its inbox folder, for opens saved while another
///   program held the database (the next write applies them: the loop's claim is one);
/// - a signalfd: stopping is just another event, and no signal can kill the ticker between a claim and
///   its record;
/// - the pidfd of every delivery program in flight: its exit is an event, never a wait.
public final class Wakeups: TickerWakeups {
    /// Signals that stop the ticker cleanly (exit 0): a terminal closed (HUP) is a stop like TERM.
    static let stopSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP, SIGQUIT]
    /// Signals whose default action would kill the ticker mid-delivery; they mean nothing to it.
    static let ignoredSignals: [Int32] = [SIGUSR1, SIGUSR2, SIGALRM]
    /// Ctrl-Z in a terminal: the ticker first withdraws its sign (`TickerLock.advertise`), so `open` does not
    /// leave its folders to a ticker that will not run, then stops itself.
    static let suspendSignals: [Int32] = [SIGTSTP]

    public struct Events: Sendable {
        public var stop: Int32?
        public var timer = false
        public var clockChanged = false
        public var databaseChanged = false
        /// Something was saved in the inbox folder.
        public var inboxChanged = false
        /// Another device's file arrived or grew in the sync folder.
        public var syncChanged = false
        /// A planner item in the calendar folder was written, renamed in or deleted (vdirsyncer).
        public var calendarChanged = false
        /// Anki wrote its collection or its WAL (a card answered, a sync).
        public var ankiChanged = false
        public var ignoredSignals: [Int32] = []
        /// SIGTSTP arrived: stop until continued, the sign withdrawn meanwhile.
        public var suspend = false

        public init(stop: Int32? = nil, timer: Bool = false) {
            self.stop = stop
            self.timer = timer
        }
    }

    private let timerFD: Int32
    private let inotifyFD: Int32
    private let folderDeadlineMilliseconds: Int64
    private let signalFD: Int32
    private let watchedNames: Set<String>
    /// The inbox folder, its name in the database's folder, and its watch (-1 while it does not exist).
    private let inbox: String?
    private let inboxName: String
    private var inboxWatch: Int32 = -1
    /// The sync folder and its watch (-1: none, or not there yet: tried again at the next wake-up).
    private var syncFolder: String?
    private var syncWatch: Int32 = -1
    /// This device's id: its own appends to its own file are not news (`watchSyncFolder`).
    private var ownDevice: String?
    /// The calendar folder and its watch (as the sync folder's).
    private var calendarFolder: String?
    private var calendarWatch: Int32 = -1
    /// Anki's collection, the names watched in its folder, and the folder's watch.
    private var ankiFile: String?
    private var ankiNames: [String] = []
    private var ankiWatch: Int32 = -1

    /// Which folder a watch is for.
    enum WatchKind: Equatable { case sync, calendar, anki }
    /// A watch being set by a child (`startWatch`): the path, and the pipe its answer comes on.
    struct PendingWatch {
        var kind: WatchKind
        var path: String
        var pid: pid_t
        var answer: Int32
        /// When it was made (monotonic ms), and whether it was said to be stuck (`FolderGuard.markStuck`).
        var started: Int64
        var markedStuck = false
    }
    /// At most one child per folder: one that is stuck (a mount that stalls) is waited for, never joined
    /// by another, and its answer sets the watch once the mount answers.
    private var pending: [PendingWatch] = []
    /// A watch that could not be set (the folder is not there yet) is tried again from then on (monotonic ms).
    private var retryAt: [(kind: WatchKind, path: String, at: Int64)] = []
    static let watchRetryMilliseconds: Int64 = 2_000

    /// `databasePath` nil: no folder watch (`tick --once` ends before anything could change).
    /// `inbox`: a folder whose new files are changes waiting for the next write. `folderDeadlineMilliseconds`:
    /// how long a watch's child may take before its folder is said stuck (the database's `FolderTiming`).
    public init(
        databasePath: String?, inbox: String? = nil, folderDeadlineMilliseconds: Int64 = FolderTiming.standardMilliseconds
    ) throws(PlannerError) {
        self.folderDeadlineMilliseconds = folderDeadlineMilliseconds
        var signals = sigset_t()
        sigemptyset(&signals)
        for s in Self.stopSignals + Self.ignoredSignals + Self.suspendSignals { sigaddset(&signals, s) }
        sigprocmask(SIG_BLOCK, &signals, nil)
        signal(SIGPIPE, SIG_IGN)  // a closed stdout is a failed delivery, not a dead ticker
        signalFD = signalfd(-1, &signals, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        timerFD = timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        inotifyFD = databasePath == nil ? -1 : inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard signalFD >= 0, timerFD >= 0, databasePath == nil || inotifyFD >= 0 else {
            throw .failure("cannot set up the ticker's timers and watches: \(String(cString: strerror(errno)))")
        }
        self.inbox = databasePath == nil ? nil : inbox
        inboxName = inbox.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? ""
        guard let databasePath else {
            watchedNames = []
            return
        }
        let slash = databasePath.lastIndex(of: "/")
        let folder = slash.map { databasePath[..<$0].isEmpty ? "/" : String(databasePath[..<$0]) } ?? "."
        let name = slash.map { String(databasePath[databasePath.index(after: $0)...]) } ?? databasePath
        watchedNames = [name, name + "-wal", name + "-shm"]
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM)
        guard inotify_add_watch(inotifyFD, folder, mask) >= 0 else {
            throw .io("cannot watch \(folder) for changes: \(String(cString: strerror(errno)))")
        }
        watchInbox()
    }

    deinit {
        for fd in [timerFD, inotifyFD, signalFD] + pending.map(\.answer) where fd >= 0 { close(fd) }
    }

    /// Watches the inbox for files saved into it (written in place, or written aside and renamed in),
    /// never through a link. A missing folder is watched once it is created (seen in the database's folder).
    private func watchInbox() {
        guard let inbox else { return }
        let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE) | UInt32(IN_DONT_FOLLOW | IN_ONLYDIR)
        inboxWatch = inotify_add_watch(inotifyFD, inbox, mask)
    }

    /// Follows the `sync-folder` setting: a file renamed into it (how Syncthing delivers) or written in it
    /// wakes the ticker, whose next write applies it. Never through a link to elsewhere than the folder.
    /// This device's own appends to its own file do not: the write that made them woke the ticker through
    /// the database already, and a publish that cannot finish (a writer frozen holding the file's lock)
    /// would otherwise wake the ticker to publish again, over and over.
    public func watchSyncFolder(_ folder: String?, ownDevice: String?) {
        self.ownDevice = ownDevice
        follow(folder, &syncFolder, &syncWatch, kind: .sync)
    }

    /// Follows the `calendar-folder` setting: vdirsyncer writes a downloaded item to a temporary name and
    /// renames it in; a deleted item is written again. Never through a link to elsewhere than the folder.
    public func watchCalendarFolder(_ folder: String?) {
        follow(folder, &calendarFolder, &calendarWatch, kind: .calendar)
    }

    static func mask(_ kind: WatchKind) -> UInt32 {
        switch kind {
        case .sync: UInt32(IN_MOVED_TO | IN_CLOSE_WRITE) | UInt32(IN_ONLYDIR)
        case .calendar: UInt32(IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE) | UInt32(IN_ONLYDIR)
        case .anki: UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE) | UInt32(IN_ONLYDIR)
        }
    }

    /// Moves a folder's watch to `folder` (none for nil): the old one is removed when the setting changed, the
    /// new one asked of a child when there is none (`startWatch`; a folder that did not exist yet is tried
    /// again a little later).
    private func follow(_ folder: String?, _ current: inout String?, _ watch: inout Int32, kind: WatchKind) {
        guard inotifyFD >= 0 else { return }
        if folder != current, watch >= 0 {
            inotify_rm_watch(inotifyFD, watch)
            watch = -1
        }
        current = folder
        guard let folder, watch < 0 else { return }
        startWatch(kind, folder)
    }

    /// Adding a watch resolves its path, and on a mount that stalls that waits for as long as the mount does
    /// (unkillable): the ticker's loop would deliver nothing and hear no SIGTERM. So a child adds it to this
    /// process's inotify instance (the same open file description: its events come here) and says which
    /// watch it made; the loop goes on meanwhile and takes the answer when it comes (`wait`). In a process of
    /// several threads (the test runner) fork is not safe, and the watch is added here.
    private func startWatch(_ kind: WatchKind, _ path: String) {
        let now = SystemClock.monotonicMilliseconds()
        // A child still waiting past the folder deadline is stuck: said on the folder's guard, so that no
        // planner process makes another child for that folder until it is answered.
        for i in pending.indices where !pending[i].markedStuck && now - pending[i].started > folderDeadlineMilliseconds {
            FolderGuard.markStuck(pending[i].path, pid: pending[i].pid)
            pending[i].markedStuck = true
        }
        if pending.contains(where: { $0.kind == kind && $0.path == path }) { return }
        if let retry = retryAt.first(where: { $0.kind == kind && $0.path == path }), now < retry.at { return }
        retryAt.removeAll { $0.kind == kind }
        guard FolderChild.singleThreaded() else {
            take(kind, path, Self.addWatch(inotifyFD, kind, path))
            return
        }
        // One stuck child per folder on the machine (`FolderGuard`): none while another is stuck on it.
        if FolderGuard.stuck(path) != nil {
            retryAt.append((kind, path, now + Self.watchRetryMilliseconds))
            return
        }
        var pipeFDs: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipeFDs) == 0 else { return }
        let pid = fork()
        if pid == 0 {
            // Nothing of the parent's is kept but the inotify instance (as 3) and the answer's pipe (as 4): not
            // its stdout, its ticker lock, its database.
            let null = Glibc.open("/dev/null", O_RDWR)
            if null >= 0 { for fd: Int32 in 0...2 { dup2(null, fd) } }
            // Copied above 4 first (either may be 3 or 4); without both, nothing is written anywhere: 3 and
            // 4 would still be the parent's (its database), and the parent tries again when the socket closes.
            let copies = [inotifyFD, pipeFDs[1]].map { fcntl($0, F_DUPFD, 5) }
            guard copies.allSatisfy({ $0 >= 0 }), dup2(copies[0], 3) == 3, dup2(copies[1], 4) == 4 else { _exit(1) }
            clinux_close_from(5)
            var none = sigset_t()
            sigemptyset(&none)
            sigprocmask(SIG_SETMASK, &none, nil)
            let answer = Self.addWatch(3, kind, path)
            var out = Wire.Writer()
            out.int(Int64(answer.watch))
            out.text(answer.file)
            _ = out.bytes.withUnsafeBytes { Glibc.write(4, $0.baseAddress, $0.count) }
            _exit(0)
        }
        close(pipeFDs[1])
        guard pid > 0 else {
            close(pipeFDs[0])
            return
        }
        pending.append(PendingWatch(kind: kind, path: path, pid: pid, answer: pipeFDs[0], started: now))
    }

    /// The watch for `kind` at `path` on `fd` (Anki's collection: the folder of the file a link names, and
    /// that file), as the child makes it.
    static func addWatch(_ fd: Int32, _ kind: WatchKind, _ path: String) -> (watch: Int32, file: String) {
        guard kind == .anki else { return (inotify_add_watch(fd, path, mask(kind)), path) }
        // Anki writes the file a link names, in the link target's folder: that folder is watched.
        var file = path
        if let resolved = realpath(path, nil) {
            file = String(cString: resolved)
            free(resolved)
        }
        guard let slash = file.lastIndex(of: "/") else { return (-1, file) }
        let folder = file[..<slash].isEmpty ? "/" : String(file[..<slash])
        return (inotify_add_watch(fd, folder, mask(kind)), file)
    }

    /// A child's answer: the watch becomes the folder's when the setting still names it (and something may
    /// have changed before it was set: the caller reads the folder again); else it is taken off again.
    /// True when it is the folder's watch now.
    @discardableResult private func take(_ kind: WatchKind, _ path: String, _ answer: (watch: Int32, file: String)) -> Bool {
        let current: String? =
            switch kind {
            case .sync: syncFolder
            case .calendar: calendarFolder
            case .anki: ankiFile
            }
        let watch: Int32 =
            switch kind {
            case .sync: syncWatch
            case .calendar: calendarWatch
            case .anki: ankiWatch
            }
        guard answer.watch >= 0 else {
            retryAt.append((kind, path, SystemClock.monotonicMilliseconds() + Self.watchRetryMilliseconds))
            return false
        }
        guard current == path, watch < 0 else {
            // The setting moved on meanwhile (or a watch was set another way): not this one. One watch per
            // inode: the folder the setting names now may share it, so it is left when it is in use.
            if answer.watch != syncWatch, answer.watch != calendarWatch, answer.watch != ankiWatch {
                inotify_rm_watch(inotifyFD, answer.watch)
            }
            return false
        }
        switch kind {
        case .sync: syncWatch = answer.watch
        case .calendar: calendarWatch = answer.watch
        case .anki:
            ankiWatch = answer.watch
            let name = answer.file.split(separator: "/").last.map(String.init) ?? answer.file
            ankiNames = [name, name + "-wal"]
        }
        return true
    }

    /// Reads each child's answer that came, and reaps it.
    private func takeAnswers(into events: inout Events) {
        for (i, child) in pending.enumerated().reversed() {
            var p = pollfd(fd: child.answer, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 0) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 8 + 8 + 4096)
            let n = Glibc.read(child.answer, &buffer, buffer.count)
            close(child.answer)
            waitpid(child.pid, nil, 0)
            pending.remove(at: i)
            var r = Wire.Reader(Array(buffer[..<max(0, n)]))
            guard let watch = r.int(), let file = r.text() else {
                retryAt.append((child.kind, child.path, SystemClock.monotonicMilliseconds() + Self.watchRetryMilliseconds))
                continue
            }
            guard take(child.kind, child.path, (Int32(truncatingIfNeeded: watch), file)) else { continue }
            // What changed before the watch was set is not seen: the folder is read again.
            switch child.kind {
            case .sync: events.syncChanged = true
            case .calendar: events.calendarChanged = true
            case .anki: events.ankiChanged = true
            }
        }
    }

    /// Follows the `anki-collection` setting: Anki appends to its WAL as each card is answered, and writes
    /// the database itself at a checkpoint and when it closes. Its folder is watched (the WAL comes and goes),
    /// for those two names only; the folder is never written.
    /// Set through a child (`startWatch`): true only when the watch was set at once (a process of several
    /// threads); otherwise the wake-up that brings the child's answer says `ankiChanged`.
    @discardableResult public func watchAnkiCollection(_ file: String?) -> Bool {
        guard inotifyFD >= 0 else { return false }
        let before = ankiWatch
        follow(file, &ankiFile, &ankiWatch, kind: .anki)
        return before < 0 && ankiWatch >= 0
    }

    /// Wakes at `instant`, or after a day when there is nothing to do (the armed timer still notices clock changes).
    public func arm(at instant: Instant?, now: Instant) {
        let target = instant ?? (now + 86_400_000)
        var spec = itimerspec()
        // A zero it_value would disarm the timer; any time in the past fires at once.
        let ms = max(target.milliseconds, 1)
        spec.it_value.tv_sec = Int(ms / 1000)
        spec.it_value.tv_nsec = Int(ms % 1000) * 1_000_000
        timerfd_settime(timerFD, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil)
    }

    /// Blocks until something happens: a signal, the timer, a database change, or one of `children`
    /// (pidfds) exiting. `pollEvery` bounds the wait (children without a pidfd on old kernels).
    public func wait(children: [Int32], pollEvery: Int32) -> Result<Events, PlannerError> {
        var fds =
            [
                pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: timerFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
            ] + children.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            + pending.map { pollfd(fd: $0.answer, events: Int16(POLLIN), revents: 0) }
        var events = Events()
        while true {
            // A folder watch to try again (`retryAt`) wakes the loop at its time: nothing else may come for hours.
            var timeout = pollEvery
            if let retry = retryAt.map(\.at).min() {
                let left = Int32(clamping: max(0, retry - SystemClock.monotonicMilliseconds()) + 1)
                timeout = timeout < 0 ? left : min(timeout, left)
            }
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(.failure("the ticker cannot wait for events (poll: \(String(cString: strerror(errno)))); restart it")) }
            if fds[0].revents != 0 { readSignals(into: &events) }
            if fds[1].revents != 0 {
                var expirations: UInt64 = 0
                if read(timerFD, &expirations, 8) < 0 && errno == ECANCELED { events.clockChanged = true } else { events.timer = true }
            }
            if fds[2].revents != 0 { drainInotify(into: &events) }
            // Children are reaped by the caller, which checks every one of them after any wake-up.
            let childExited = fds.dropFirst(3).prefix(children.count).contains { $0.revents != 0 }
            // A watch's child answered: the poll set changes, so the caller comes back with a new one.
            let answered = fds.dropFirst(3 + children.count).contains(where: { $0.revents != 0 })
            if answered { takeAnswers(into: &events) }
            if n == 0 || childExited || answered || events.stop != nil || events.timer || events.clockChanged
                || events.databaseChanged || events.inboxChanged || events.syncChanged || events.calendarChanged || events.ankiChanged
                || !events.ignoredSignals.isEmpty || events.suspend
            {
                return .success(events)
            }
            for i in fds.indices { fds[i].revents = 0 }
        }
    }

    private func readSignals(into events: inout Events) {
        var info = signalfd_siginfo()
        while read(signalFD, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            let signo = Int32(info.ssi_signo)
            if Self.stopSignals.contains(signo) {
                events.stop = events.stop ?? signo
            } else if Self.suspendSignals.contains(signo) {
                events.suspend = true
            } else {
                events.ignoredSignals.append(signo)
            }
        }
    }

    /// Reads every pending inotify event: the database or its WAL files changed, or the inbox received a file.
    private func drainInotify(into events: inout Events) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(inotifyFD, &buffer, buffer.count)
            guard n > 0 else { break }
            var offset = 0
            // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[len]; }
            while offset + 16 <= n {
                let len = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8 | Int(buffer[offset + 14]) << 16 | Int(buffer[offset + 15]) << 24
                let wd = Int32(
                    bitPattern: UInt32(buffer[offset]) | UInt32(buffer[offset + 1]) << 8 | UInt32(buffer[offset + 2]) << 16 | UInt32(
                        buffer[offset + 3]) << 24)
                let mask =
                    UInt32(buffer[offset + 4]) | UInt32(buffer[offset + 5]) << 8 | UInt32(buffer[offset + 6]) << 16 | UInt32(buffer[offset + 7]) << 24
                let nameBytes = buffer[(offset + 16)..<min(offset + 16 + len, n)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset += 16 + len
                // Events were dropped: anything may have changed.
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    events.databaseChanged = true
                    events.inboxChanged = inbox != nil
                } else if wd == syncWatch && syncWatch >= 0 {
                    // The folder went away (unmounted, removed): watched again when the setting is read next.
                    if mask & UInt32(IN_IGNORED) != 0 {
                        syncWatch = -1
                    } else if case .events(let device) = SyncFileText.classify(name),
                        !(device == ownDevice && mask & UInt32(IN_CLOSE_WRITE) != 0 && !name.contains(".sync-conflict-"))
                    {
                        // Only an engine renames a file in (IN_MOVED_TO): that wakes even for this device's name.
                        events.syncChanged = true
                    }
                } else if wd == calendarWatch && calendarWatch >= 0 {
                    // Only the planner's own names: the user's items and the planner's temporary files
                    // (written aside, then renamed in) do not wake it.
                    if mask & UInt32(IN_IGNORED) != 0 {
                        calendarWatch = -1
                    } else if CalendarFolderText.uid(fromFileName: name) != nil {
                        events.calendarChanged = true
                    }
                } else if wd == ankiWatch && ankiWatch >= 0 {
                    if mask & UInt32(IN_IGNORED) != 0 { ankiWatch = -1 } else if ankiNames.contains(name) { events.ankiChanged = true }
                } else if wd == inboxWatch && inboxWatch >= 0 {
                    // The inbox itself was removed (its watch ends), or received a file; a name starting
                    // with "." is one still being written, renamed in when complete.
                    if mask & UInt32(IN_IGNORED) != 0 { inboxWatch = -1 } else if !name.hasPrefix(".") { events.inboxChanged = true }
                } else if watchedNames.contains(name) {
                    events.databaseChanged = true
                } else if inbox != nil, name == inboxName, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    // The inbox folder (re)appeared: watch it, and look at once (a file may already be in it).
                    watchInbox()
                    events.inboxChanged = true
                }
            }
        }
    }
}
