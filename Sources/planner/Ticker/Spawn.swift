import Glibc

/// Runs a program directly (posix_spawnp, never through a shell): arguments and environment values are
/// data, so a title such as `$(rm -rf ~)` is never interpreted.
enum Spawn {
    enum Outcome: Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
        case interrupted  // the ticker was asked to stop while the program ran
        case couldNotStart(String)
    }

    /// Waits at most `timeoutMilliseconds`; `shouldStop` is polled so SIGTERM is honoured within ~0.5 s.
    static func run(_ arguments: [String], extraEnvironment: [String: String], timeoutMilliseconds: Int,
                    shouldStop: () -> Bool) -> Outcome {
        var environment: [String] = []
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if extraEnvironment[name] == nil { environment.append(text) }
            p += 1
        }
        environment += extraEnvironment.map { "\($0.key)=\($0.value)" }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The ticker blocks SIGTERM/SIGINT (it reads them from a signalfd) and ignores SIGPIPE: give the
        // child ordinary signals.
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // Its own process group, so a timeout or stop ends whatever it started too.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard rc == 0 else { return .couldNotStart("\(arguments[0]): \(String(cString: strerror(rc)))") }

        var status: Int32 = 0
        var waited = 0
        var stopRequestedAt: Int?
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { return .couldNotStart("waitpid: \(String(cString: strerror(errno)))") }
            if stopRequestedAt == nil, shouldStop() { stopRequestedAt = waited }
            let limit = stopRequestedAt.map { $0 + 500 } ?? timeoutMilliseconds
            if waited >= limit {
                kill(-pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                return stopRequestedAt == nil ? .timedOut : .interrupted
            }
            usleep(2_000)
            waited += 2
        }
        let termination = status & 0x7f
        if termination == 0 { return .exited((status >> 8) & 0xff) }
        return .signalled(termination)
    }
}
