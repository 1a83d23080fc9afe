/// "One login session", so that the login hook (`planner open --login`) records one open per login and
/// nothing for what runs inside it: tmux panes, `su -` to the same user, nested login shells.
///
/// The session is, first that applies:
/// 1. the kernel's audit session (/proc/self/sessionid): pam_loginuid gives every real login (login, sshd,
///    a display manager) a new one, and every process started in it inherits it, the tmux server and its
///    panes and `su` included; logind names its sessions after it;
/// 2. logind's session (the `session-ID.scope` of the process's cgroup, else `$XDG_SESSION_ID`, which tmux
///    panes moved to scopes of their own still carry);
/// 3. without either (containers, WSL, systems without logind): the outermost process of the user's own that
///    the login shell descends from (what login, sshd or the display manager started). `su -` reaches it
///    through its ancestors; tmux panes, whose server left its parent, through `$PLANNER_LOGIN`, the pid of
///    the first login shell that ran the hook (the hook exports it).
/// Each is qualified by the boot id: audit and logind numbers start again at every boot.
public struct LoginSessionFacts: Sendable, Equatable {
    /// A process: its pid, its start time (clock ticks since boot: pid and start time name it for the boot)
    /// and its real uid (a setuid `su` keeps the caller's).
    public struct Process: Sendable, Equatable {
        public var pid: Int32
        public var start: UInt64
        public var uid: UInt32
        public init(pid: Int32, start: UInt64, uid: UInt32) { (self.pid, self.start, self.uid) = (pid, start, uid) }
        var key: String { "process \(pid) \(start)" }
    }
    public enum Hint: Sendable, Equatable {
        /// `$PLANNER_LOGIN` unset or not a pid.
        case none
        /// It names a process that has ended: this shell runs in what outlived that login (an old tmux).
        case ended
        /// That login shell and its ancestors, nearest first.
        case alive([Process])
    }

    public var uid: UInt32
    /// /proc/sys/kernel/random/boot_id.
    public var bootID: String?
    /// /proc/self/sessionid, nil when unset (4294967295).
    public var auditSession: UInt32?
    /// The logind session of the process's cgroup, else `$XDG_SESSION_ID`.
    public var logindSession: String?
    /// This process's ancestors, nearest (the shell running the hook) first, pid 1 left out.
    public var ancestors: [Process]
    public var hint: Hint

    public init(uid: UInt32, bootID: String?, auditSession: UInt32?, logindSession: String?, ancestors: [Process], hint: Hint) {
        (self.uid, self.bootID, self.auditSession, self.logindSession) = (uid, bootID, auditSession, logindSession)
        (self.ancestors, self.hint) = (ancestors, hint)
    }
}

public enum LoginSessionDecision: Sendable, Equatable {
    /// Record the login's open as the event `id`, unless one of `counted` (ids of logins this shell runs
    /// inside) is recorded already; the same id again is never applied twice (the event table).
    case record(id: String, unlessRecorded: [String])
    /// A shell of a login that has ended (a tmux pane after logout): nothing to record.
    case outlived
    /// No boot id to qualify the session with: every login records (the behaviour before sessions).
    case unknown
}

public enum LoginSession {
    public static func decide(_ f: LoginSessionFacts) -> LoginSessionDecision {
        guard let boot = f.bootID, !boot.isEmpty else { return .unknown }
        func id(_ key: String) -> String { eventID("planner login\0\(boot)\0\(f.uid)\0\(key)") }
        if let audit = f.auditSession { return .record(id: id("audit \(audit)"), unlessRecorded: []) }
        if let logind = f.logindSession { return .record(id: id("logind \(logind)"), unlessRecorded: []) }
        let chain: [LoginSessionFacts.Process]
        switch f.hint {
        case .ended: return .outlived
        case .alive(let hinted):
            // A pid is reused once its process ends: the login shell `$PLANNER_LOGIN` names is either one of
            // this shell's own ancestors, or started before the outermost of them (a tmux server is started
            // from inside the login). A process that started later only took the number: that login ended.
            if let hintedLogin = hinted.first, !f.ancestors.contains(hintedLogin),
                let top = f.ancestors.prefix(while: { $0.uid == f.uid }).last ?? f.ancestors.first,
                hintedLogin.start > top.start || hintedLogin.uid != f.uid
            {
                return .outlived
            }
            chain = hinted
        case .none: chain = f.ancestors
        }
        guard let nearest = chain.first else { return .unknown }
        // The outermost of the user's own processes above the shell: where login, sshd or the desktop began.
        let outermost = chain.prefix { $0.uid == f.uid }.last ?? nearest
        var inside: [String] = []
        for process in f.ancestors + chain where process.key != outermost.key && !inside.contains(id(process.key)) {
            inside.append(id(process.key))
        }
        return .record(id: id(outermost.key), unlessRecorded: inside)
    }

    /// 32 hex digits (an event id) from `text`: two 64-bit FNV-1a hashes with different starting values.
    /// Not secret, only distinct: the same session always gives the same id.
    static func eventID(_ text: String) -> String {
        func fnv(_ basis: UInt64) -> UInt64 {
            var hash = basis
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            return hash
        }
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(fnv(0xcbf2_9ce4_8422_2325)) + hex(fnv(0x6c62_272e_07bb_0142))
    }
}
