import CLinux
import Glibc
import PlannerSystem

/// The ticker's programs (`Subprocess`): starting never waits for the program; the ticker watches the child's
/// pidfd in its one poll loop and reaps it when it is readable.
public enum Spawn {
    public enum Outcome: Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
        case interrupted  // the ticker was asked to stop while the program ran
        case couldNotStart(String)
    }

    /// A running child in its own process group. `pidfd` is -1 on kernels without pidfd_open: the
    /// ticker then checks such children every 20 ms instead.
    public struct Child {
        let pid: pid_t
        let pidfd: Int32
        /// The read end of the child's stdout (non-blocking) when it was captured, else -1.
        var output: Int32 = -1
    }

    static func start(
        _ arguments: [String], extraEnvironment: [String: String],
        captureOutput: Bool = false, discardErrors: Bool = false, captureErrors: Bool = false,
        ownGroup: Bool = true
    ) -> Result<Child, SpawnFailure> {
        var options = Subprocess.Options()
        options.environment = Subprocess.environment(adding: extraEnvironment)
        // A pipe for the child's stdout: the ticker reads it in its poll loop (notify-send prints the
        // notification's id when shown, then the action chosen).
        options.output = captureOutput ? .pipe : .inherited
        options.errors = discardErrors ? .null : captureErrors ? .withOutput : .inherited
        // Its own process group, so a timeout or stop ends whatever it started too.
        options.ownGroup = ownGroup
        // The ticker blocks the signals it reads from a signalfd and ignores SIGPIPE: give the child
        // ordinary signals.
        options.defaultSignals = Wakeups.stopSignals + Wakeups.ignoredSignals + [SIGPIPE]
        switch Subprocess.start(arguments, options) {
        case .failure(let failure):
            return .failure(SpawnFailure(why: failure.describe(arguments[0])))
        case .success(let started):
            if started.output >= 0 { _ = fcntl(started.output, F_SETFL, fcntl(started.output, F_GETFL) | O_NONBLOCK) }
            return .success(Child(pid: started.pid, pidfd: clinux_pidfd_open(started.pid), output: started.output))
        }
    }

    /// What the child wrote since the last call (nil at end of file: it closed its stdout).
    static func readAvailable(_ fd: Int32) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 {
                out += buffer[0..<n]
                continue
            }
            if n == 0 { return out.isEmpty ? nil : out }
            return out  // EAGAIN: nothing more for now
        }
    }

    /// The child's outcome if it has exited (the pidfd was readable), else nil. Closes the pidfd once reaped.
    static func reap(_ child: Child) -> Outcome? {
        var status: Int32 = 0
        let r = waitpid(child.pid, &status, WNOHANG)
        guard r == child.pid else {
            if r < 0 && errno != EINTR {
                if child.pidfd >= 0 { close(child.pidfd) }
                return .couldNotStart("waitpid: \(String(cString: strerror(errno)))")
            }
            return nil
        }
        if child.pidfd >= 0 { close(child.pidfd) }
        if child.output >= 0 { close(child.output) }
        let termination = status & 0x7f
        if termination == 0 { return .exited((status >> 8) & 0xff) }
        return .signalled(termination)
    }

    /// Runs a short query (e.g. one D-Bus call) and returns what it printed if it exited 0 within
    /// `timeoutMilliseconds`, else nil. The one place the ticker waits for a program: keep the bound small.
    static func output(of arguments: [String], extraEnvironment: [String: String], timeoutMilliseconds: Int32) -> String? {
        // Its complaints (no server, no reply) are not the ticker's to log: nil says it failed.
        guard
            case .success(let child) = start(
                arguments, extraEnvironment: extraEnvironment, captureOutput: true,
                discardErrors: true)
        else { return nil }
        var bytes: [UInt8] = []
        var left = timeoutMilliseconds
        while left > 0 {
            var ready = pollfd(fd: child.output, events: Int16(POLLIN), revents: 0)
            let began = SystemClock.monotonicMilliseconds()
            if poll(&ready, 1, left) < 0 && errno != EINTR { break }
            left -= Int32(clamping: SystemClock.monotonicMilliseconds() - began)
            guard let more = readAvailable(child.output) else {  // end of file: it has finished
                guard case .exited(0)? = waitForExit(child) else { return nil }
                return String(decoding: bytes, as: UTF8.self)
            }
            bytes += more
        }
        kill(child)
        return nil
    }

    /// Runs `arguments` to the end, or kills it after `timeoutMilliseconds`: what it printed on stdout and
    /// stderr (the last `keep` bytes) and how it ended. For a job that is itself a separate process
    /// (`planner calendar-sync`), never for the ticker's loop. It stays in this process's group: whoever
    /// stops this process (the ticker's deadline, Ctrl-C) stops it too, never leaving it behind.
    public static func run(
        _ arguments: [String], extraEnvironment: [String: String] = [:], timeoutMilliseconds: Int64,
        keep: Int = 64 << 10
    ) -> (outcome: Outcome, output: String) {
        let child: Child
        switch start(arguments, extraEnvironment: extraEnvironment, captureOutput: true, captureErrors: true, ownGroup: false) {
        case .success(let c): child = c
        case .failure(let failure): return (.couldNotStart(failure.why), "")
        }
        var bytes: [UInt8] = []
        let deadline = SystemClock.monotonicMilliseconds() + timeoutMilliseconds
        while true {
            let left = deadline - SystemClock.monotonicMilliseconds()
            guard left > 0 else {
                killAlone(child)
                return (.timedOut, String(decoding: bytes, as: UTF8.self))
            }
            var ready = pollfd(fd: child.output, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, Int32(min(left, 1000))) < 0 && errno != EINTR { break }
            guard let more = readAvailable(child.output) else { break }  // end of file: it has finished
            bytes += more
            if bytes.count > keep { bytes.removeFirst(bytes.count - keep) }
        }
        // Its output closed: it exits now (or a grandchild kept the pipe; then the deadline still holds).
        while true {
            if let outcome = reap(child) { return (outcome, String(decoding: bytes, as: UTF8.self)) }
            if SystemClock.monotonicMilliseconds() >= deadline {
                killAlone(child)
                return (.timedOut, String(decoding: bytes, as: UTF8.self))
            }
            usleep(5_000)
        }
    }

    /// Reaps a child that closed its stdout (it exits at once; a bounded wait all the same).
    private static func waitForExit(_ child: Child) -> Outcome? {
        for _ in 0..<50 {
            if let outcome = reap(child) { return outcome }
            usleep(2_000)
        }
        kill(child)
        return nil
    }

    /// Kills a child that shares this process's group (not the group: that is us) and reaps it.
    static func killAlone(_ child: Child) {
        Glibc.kill(child.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        if child.pidfd >= 0 { close(child.pidfd) }
        if child.output >= 0 { close(child.output) }
    }

    /// Kills the child's whole process group and reaps it (SIGKILL: it cannot linger).
    static func kill(_ child: Child) {
        Glibc.kill(-child.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0 && errno == EINTR {}
        if child.pidfd >= 0 { close(child.pidfd) }
        if child.output >= 0 { close(child.output) }
    }
}

struct SpawnFailure: Error {
    let why: String
}
