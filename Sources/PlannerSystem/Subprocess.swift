import Glibc

/// Starts a program directly (posix_spawn, never through a shell): arguments and environment values are data,
/// so a title such as `$(rm -rf ~)` is never interpreted. The one place the planner starts a program: the
/// ticker's sink and its short queries (`Spawn`, which never waits on it), setup's `crontab` and `systemctl`
/// (`ProgramRunner`, which does), and the ticker `setup` leaves running.
public enum Subprocess {
    /// Where one of the child's standard streams goes.
    public enum Stream: Equatable {
        /// This process's own.
        case inherited
        /// /dev/null.
        case null
        /// A pipe whose other end this process holds (`Started.input` or `.output`).
        case pipe
        /// stderr only: into stdout's pipe (which `output: .pipe` makes).
        case withOutput
    }

    public struct Options {
        public var input: Stream = .null
        public var output: Stream = .inherited
        public var errors: Stream = .inherited
        /// "NAME=value" entries; nil: this process's environment.
        public var environment: [String]?
        /// Found on PATH (posix_spawnp), or run by its path as given.
        public var searchPath = true
        /// A process group of its own: a timeout or a stop ends whatever it started too.
        public var ownGroup = false
        /// A session of its own (no terminal's hangup reaches it): a program that outlives this one.
        public var ownSession = false
        /// Signals the child starts with at their default action and none blocked (nil: as this process has
        /// them): the ticker blocks the signals it reads from a signalfd and ignores SIGPIPE.
        public var defaultSignals: [Int32]?

        public init() {}
    }

    /// A started child: its pid, and this process's ends of its pipes (-1 without one).
    public struct Started {
        public let pid: pid_t
        /// The write end of the child's stdin.
        public let input: Int32
        /// The read end of the child's stdout (and stderr, `.withOutput`).
        public let output: Int32
    }

    /// Why a program could not be started: the errno of a pipe or of posix_spawn (ENOENT: not found).
    public struct Failure: Error {
        public let errno: Int32
        /// Whether making a pipe failed (the process is out of descriptors, say), not starting the program.
        public var inPipe = false

        public init(errno: Int32, inPipe: Bool = false) {
            self.errno = errno
            self.inPipe = inPipe
        }

        /// `program: pipe: <why>` or `program: <why>`: which step, and the system's words.
        public func describe(_ program: String) -> String {
            "\(program): \(inPipe ? "pipe: " : "")\(String(cString: strerror(errno)))"
        }
    }

    /// Starts `arguments` (the program first). The pipes are close-on-exec here, so no other child inherits
    /// them.
    public static func start(_ arguments: [String], _ options: Options) -> Result<Started, Failure> {
        // stderr has no pipe of its own: it goes with stdout's.
        precondition(options.errors != .pipe && (options.errors != .withOutput || options.output == .pipe), "stderr: .withOutput needs output: .pipe")
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        func closeAll() { for fd in toChild + fromChild where fd >= 0 { close(fd) } }
        // pipe + FD_CLOEXEC (pipe2 needs _GNU_SOURCE): nothing forks in between (one thread).
        func makePipe(_ fds: inout [Int32]) -> Int32? {
            guard pipe(&fds) == 0 else { return errno }
            guard fcntl(fds[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(fds[1], F_SETFD, FD_CLOEXEC) == 0 else { return errno }
            return nil
        }
        if options.input == .pipe, let failure = makePipe(&toChild) {
            closeAll()
            return .failure(Failure(errno: failure, inPipe: true))
        }
        if options.output == .pipe, let failure = makePipe(&fromChild) {
            closeAll()
            return .failure(Failure(errno: failure, inPipe: true))
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        func place(_ stream: Stream, on fd: Int32) {
            switch stream {
            case .inherited: break
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            case .pipe: posix_spawn_file_actions_adddup2(&actions, fd == 0 ? toChild[0] : fromChild[1], fd)
            case .withOutput: if fromChild[1] >= 0 { posix_spawn_file_actions_adddup2(&actions, fromChild[1], fd) }
            }
        }
        place(options.input, on: 0)
        place(options.output, on: 1)
        place(options.errors, on: 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags: Int32 = 0
        if let signals = options.defaultSignals {
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigmask(&attributes, &empty)
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in signals { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            flags |= Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        }
        if options.ownGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        // POSIX_SPAWN_SETSID (glibc 2.26): <spawn.h> defines it only under _GNU_SOURCE, out of Swift's sight.
        if options.ownSession { flags |= 0x80 }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = options.environment.map { $0.map { strdup($0) } + [nil] }
        defer { for pointer in argv + (envp ?? []) { free(pointer) } }
        var pid: pid_t = 0
        let rc = envp.withSpawnEnvironment { environment in
            options.searchPath
                ? posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environment)
                : posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environment)
        }
        // The child's ends, which this process never uses.
        if toChild[0] >= 0 { close(toChild[0]) }
        if fromChild[1] >= 0 { close(fromChild[1]) }
        guard rc == 0 else {
            if toChild[1] >= 0 { close(toChild[1]) }
            if fromChild[0] >= 0 { close(fromChild[0]) }
            return .failure(Failure(errno: rc))
        }
        return .success(Started(pid: pid, input: toChild[1], output: fromChild[0]))
    }

    /// This process's environment, with `extra`'s names replaced by its values: what a child starts with.
    public static func environment(adding extra: [String: String]) -> [String] {
        var entries: [String] = []
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if extra[name] == nil { entries.append(text) }
            p += 1
        }
        return entries + extra.map { "\($0.key)=\($0.value)" }
    }
}

extension Optional where Wrapped == [UnsafeMutablePointer<CChar>?] {
    /// The entries as a C array (nil: this process's `environ`), for the length of `body`.
    fileprivate func withSpawnEnvironment(_ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Int32) -> Int32 {
        guard let entries = self else { return body(environ) }
        return entries.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
