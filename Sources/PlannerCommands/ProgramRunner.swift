import Glibc
import PlannerSystem

/// Runs another program directly (`Subprocess`: no shell) and collects what it said: setup's `crontab` and
/// `systemctl`.
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
        var options = Subprocess.Options()
        options.output = .null
        options.errors = .null
        options.searchPath = false
        options.ownSession = true
        return (try? Subprocess.start(arguments, options).get()) != nil
    }

    /// Found on PATH and started with posix_spawnp, in this process's environment.
    public static var spawning: ProgramRunner { ProgramRunner(start: spawn) }

    private static func spawn(_ arguments: [String], input: String?, errors: Errors) -> Result<(status: Int32, output: String), StartFailure> {
        var options = Subprocess.Options()
        options.input = .pipe
        options.output = .pipe
        switch errors {
        case .merged: options.errors = .withOutput
        case .discarded: options.errors = .null
        case .shown: options.errors = .inherited
        }
        let started: Subprocess.Started
        switch Subprocess.start(arguments, options) {
        case .failure(let failure): return .failure(StartFailure(errno: failure.errno))
        case .success(let child): started = child
        }
        // The inputs here are a crontab: far below a pipe's buffer, so writing first cannot deadlock.
        // A program may exit before reading (Debian's crontab refusing a user): the write then fails with
        // EPIPE, and the program's status says why, instead of SIGPIPE ending this process.
        if let input {
            let previous = signal(SIGPIPE, SIG_IGN)
            var bytes = Array(input.utf8)[...]
            while !bytes.isEmpty {
                let n = bytes.withUnsafeBytes { Glibc.write(started.input, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                bytes = bytes.dropFirst(n)
            }
            signal(SIGPIPE, previous)
        }
        close(started.input)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = Glibc.read(started.output, &buffer, buffer.count)
            if n > 0 {
                output += buffer[0..<n]
                continue
            }
            if n < 0 && errno == EINTR { continue }
            break
        }
        close(started.output)
        var status: Int32 = 0
        while waitpid(started.pid, &status, 0) < 0 && errno == EINTR {}
        let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return .success((exit, String(decoding: output, as: UTF8.self)))
    }
}
