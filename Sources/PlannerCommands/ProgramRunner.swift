import Glibc

/// Runs another program directly (no shell) and collects what it said: setup's `crontab` and `systemctl`.
/// A test passes one that answers as those programs would, and nothing runs.
public struct ProgramRunner {
    /// Where the program's stderr goes.
    public enum Errors: Equatable {
        /// To /dev/null.
        case discarded
        /// To ours (the user sees it).
        case shown
        /// Into the collected output (a refusal quoted in our error line).
        case merged
    }

    /// Why a program could not be started: the errno of posix_spawnp (ENOENT: not on PATH) or of the pipes.
    public struct StartFailure: Error, Equatable {
        public let errno: Int32
        public init(errno: Int32) { self.errno = errno }
    }

    /// The exit status and stdout of `arguments` run with `input` on its stdin, or why it could not be started.
    public var start: (_ arguments: [String], _ input: String?, _ errors: Errors) -> Result<(status: Int32, output: String), StartFailure>

    public init(start: @escaping (_ arguments: [String], _ input: String?, _ errors: Errors) -> Result<(status: Int32, output: String), StartFailure>)
    {
        self.start = start
    }

    /// A runner that only says whether a program ran (nil: it could not be started, as if not installed).
    public init(run: @escaping (_ arguments: [String], _ input: String?, _ errors: Errors) -> (status: Int32, output: String)?) {
        start = { arguments, input, errors in run(arguments, input, errors).map { .success($0) } ?? .failure(StartFailure(errno: ENOENT)) }
    }

    /// The exit status and stdout, or nil when the program cannot be started.
    public func callAsFunction(
        _ arguments: [String], input: String? = nil,
        errors: Errors = .discarded
    ) -> (status: Int32, output: String)? {
        try? start(arguments, input, errors).get()
    }

    /// Starts a program that outlives this one (the live ticker `setup --install` starts): a session of its
    /// own (no terminal's hangup reaches it), standard input and output on /dev/null, never waited for.
    /// False when it could not be started.
    public static func startDetached(_ arguments: [String]) -> Bool {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in Int32(0)...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc 2.26): <spawn.h> defines it only under _GNU_SOURCE, out of Swift's sight.
        posix_spawnattr_setflags(&attributes, 0x80)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        return posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ) == 0
    }

    /// Found on PATH and started with posix_spawnp, in this process's environment.
    public static var spawning: ProgramRunner { ProgramRunner(start: spawn) }

    private static func spawn(_ arguments: [String], input: String?, errors: Errors) -> Result<(status: Int32, output: String), StartFailure> {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0 else { return .failure(StartFailure(errno: errno)) }
        guard pipe(&fromChild) == 0 else {
            let failure = StartFailure(errno: errno)
            close(toChild[0])
            close(toChild[1])
            return .failure(failure)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        switch errors {
        case .merged: posix_spawn_file_actions_adddup2(&actions, fromChild[1], 2)
        case .discarded: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        case .shown: break
        }
        for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard rc == 0 else {
            close(toChild[1])
            close(fromChild[0])
            return .failure(StartFailure(errno: rc))
        }
        // The inputs here are a crontab: far below a pipe's buffer, so writing first cannot deadlock.
        // A program may exit before reading (Debian's crontab refusing a user): the write then fails with
        // EPIPE, and the program's status says why, instead of SIGPIPE ending this process.
        if let input {
            let previous = signal(SIGPIPE, SIG_IGN)
            var bytes = Array(input.utf8)[...]
            while !bytes.isEmpty {
                let n = bytes.withUnsafeBytes { Glibc.write(toChild[1], $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                bytes = bytes.dropFirst(n)
            }
            signal(SIGPIPE, previous)
        }
        close(toChild[1])
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = Glibc.read(fromChild[0], &buffer, buffer.count)
            if n > 0 {
                output += buffer[0..<n]
                continue
            }
            if n < 0 && errno == EINTR { continue }
            break
        }
        close(fromChild[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return .success((exit, String(decoding: output, as: UTF8.self)))
    }
}
