import Glibc
import PlannerCore

extension LoginSessionFacts {
    /// This process's facts from /proc and `environment` (see `LoginSession`).
    public static func current(environment: (String) -> String?) -> LoginSessionFacts {
        let boot = ProcFile.read("/proc/sys/kernel/random/boot_id").map { String($0.filter { !$0.isWhitespace }) }
        let audit = ProcFile.read("/proc/self/sessionid").flatMap { UInt32($0.filter { !$0.isWhitespace }) }
        var logind: String?
        // "0::/user.slice/user-1000.slice/session-3.scope" (cgroup v2), or a v1 hierarchy's line.
        for line in (ProcFile.read("/proc/self/cgroup") ?? "").split(separator: "\n") {
            guard let scope = line.split(separator: "/").last, scope.hasPrefix("session-"), scope.hasSuffix(".scope") else { continue }
            logind = String(scope.dropFirst("session-".count).dropLast(".scope".count))
            break
        }
        if logind == nil, let xdg = environment("XDG_SESSION_ID"), !xdg.isEmpty { logind = xdg }
        var hint = Hint.none
        if let text = environment("PLANNER_LOGIN"), let pid = Int32(text), pid > 1 {
            if let login = process(pid) { hint = .alive([login] + ancestors(of: login)) } else { hint = .ended }
        }
        let me = entry(getpid()).map { ancestors(of: $0) } ?? []
        // 4294967295: (uint32)-1, no audit session was ever set for this process.
        return LoginSessionFacts(
            uid: getuid(), bootID: boot, auditSession: audit == UInt32.max ? nil : audit,
            logindSession: logind, ancestors: me, hint: hint)
    }

    /// A process's pid, start time and real uid, nil when it does not exist (or /proc cannot say). Read as
    /// bytes: split into String lines, each ancestor cost more than the rest of `open --login` (which walks them all).
    static func entry(_ pid: Int32) -> (Process, parent: Int32)? {
        // "pid (comm) state ppid ... starttime ...": comm may hold spaces and parentheses, so after the last ')'.
        guard let stat = ProcFile.bytes("/proc/\(pid)/stat"), let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = stat[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19, let parent = ProcFile.number(fields[1]).flatMap({ Int32(exactly: $0) }),
            let start = ProcFile.number(fields[19]),
            let status = ProcFile.bytes("/proc/\(pid)/status"),
            let uid = ProcFile.firstNumber(of: "Uid:", in: status[...]).flatMap({ UInt32(exactly: $0) })
        else { return nil }
        return (Process(pid: pid, start: start, uid: uid), parent)
    }

    static func process(_ pid: Int32) -> Process? { entry(pid).map { $0.0 } }

    /// `of`'s ancestors, nearest first, up to (without) pid 1.
    static func ancestors(of first: (Process, parent: Int32)) -> [Process] {
        var chain: [Process] = []
        var parent = first.parent
        while parent > 1, chain.count < 64, let next = entry(parent) {
            chain.append(next.0)
            parent = next.parent
        }
        return chain
    }

    static func ancestors(of login: Process) -> [Process] {
        guard let found = entry(login.pid) else { return [] }
        return ancestors(of: found)
    }
}

/// Small files of /proc, read whole.
public enum ProcFile {
    public static func read(_ path: String) -> String? {
        bytes(path).map { String(decoding: $0, as: UTF8.self) }
    }

    static func bytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return bytes
    }

    /// A decimal number of at most 18 digits, all of `digits`; nil for anything else.
    static func number(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard (1...18).contains(digits.count) else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The first number on the line starting with `key` ("Uid:", "Threads:") in a /proc status file: after
    /// the key and tabs or spaces, up to the next tab, space or line end. Nil when there is no such line or
    /// it does not start with a number.
    public static func firstNumber(of key: String, in status: ArraySlice<UInt8>) -> UInt64? {
        let key = Array(key.utf8)
        var lineStart = status.startIndex
        while lineStart < status.endIndex {
            let lineEnd = status[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? status.endIndex
            let line = status[lineStart..<lineEnd]
            if line.starts(with: key) {
                let rest = line.dropFirst(key.count).drop { $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: " ") }
                return number(rest.prefix { $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: " ") })
            }
            lineStart = lineEnd + 1
        }
        return nil
    }
}
