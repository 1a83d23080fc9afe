import CLinux
import Glibc
import PlannerCore
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

    /// `databasePath` nil: no folder watch (`tick --once` ends before anything could change).
    /// `inbox`: a folder whose new files are changes waiting for the next write.
    public init(databasePath: String?, inbox: String? = nil) throws(PlannerError) {
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
        for fd in [timerFD, inotifyFD, signalFD] where fd >= 0 { close(fd) }
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
        follow(folder, &syncFolder, &syncWatch, mask: UInt32(IN_MOVED_TO | IN_CLOSE_WRITE))
    }

    /// Follows the `calendar-folder` setting: vdirsyncer writes a downloaded item to a temporary name and
    /// renames it in; a deleted item is written again. Never through a link to elsewhere than the folder.
    public func watchCalendarFolder(_ folder: String?) {
        follow(folder, &calendarFolder, &calendarWatch, mask: UInt32(IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE))
    }

    /// Moves a folder's watch to `folder` (none for nil): the old one is removed when the setting changed, the
    /// new one added when there is none (a folder that did not exist yet is tried again at the next call).
    private func follow(_ folder: String?, _ current: inout String?, _ watch: inout Int32, mask: UInt32) {
        guard inotifyFD >= 0 else { return }
        if folder != current, watch >= 0 {
            inotify_rm_watch(inotifyFD, watch)
            watch = -1
        }
        current = folder
        guard let folder, watch < 0 else { return }
        watch = inotify_add_watch(inotifyFD, folder, mask | UInt32(IN_ONLYDIR))
    }

    /// Follows the `anki-collection` setting: Anki appends to its WAL as each card is answered, and writes
    /// the database itself at a checkpoint and when it closes. Its folder is watched (the WAL comes and goes),
    /// for those two names only; the folder is never written.
    @discardableResult public func watchAnkiCollection(_ file: String?) -> Bool {
        guard inotifyFD >= 0 else { return false }
        if file != ankiFile, ankiWatch >= 0 {
            inotify_rm_watch(inotifyFD, ankiWatch)
            ankiWatch = -1
        }
        ankiFile = file
        // Anki writes the file a link names, in the link target's folder: that folder is watched.
        guard let given = file, ankiWatch < 0 else { return false }
        var file = given
        if let resolved = realpath(given, nil) {
            file = String(cString: resolved)
            free(resolved)
        }
        guard let slash = file.lastIndex(of: "/") else { return false }
        let name = String(file[file.index(after: slash)...])
        ankiNames = [name, name + "-wal"]
        let folder = file[..<slash].isEmpty ? "/" : String(file[..<slash])
        ankiWatch = inotify_add_watch(
            inotifyFD, folder, UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE) | UInt32(IN_ONLYDIR))
        return ankiWatch >= 0
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
        var events = Events()
        while true {
            let n = poll(&fds, nfds_t(fds.count), pollEvery)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(.failure("the ticker cannot wait for events (poll: \(String(cString: strerror(errno)))); restart it")) }
            if fds[0].revents != 0 { readSignals(into: &events) }
            if fds[1].revents != 0 {
                var expirations: UInt64 = 0
                if read(timerFD, &expirations, 8) < 0 && errno == ECANCELED { events.clockChanged = true } else { events.timer = true }
            }
            if fds[2].revents != 0 { drainInotify(into: &events) }
            // Children are reaped by the caller, which checks every one of them after any wake-up.
            let childExited = fds.dropFirst(3).contains { $0.revents != 0 }
            if n == 0 || childExited || events.stop != nil || events.timer || events.clockChanged
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
