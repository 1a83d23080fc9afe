import Glibc
import PlannerCore
import PlannerFolders
import PlannerStore
import PlannerSystem

/// How a delivery began: done at once (stdout), or a program now running, which the ticker watches in
/// its poll loop and kills at the deadline.
public enum DeliveryStart {
    case finished(error: String?)
    case running(Spawn.Child, program: String, timeoutMilliseconds: Int64)
}

/// Where a reminder goes. `start` never waits for a program to finish; `judge` turns its outcome into
/// nil (delivered) or why it failed.
public protocol DeliverySink {
    var name: String { get }
    func start(_ request: ClaimedRequest, fireAt: String) -> DeliveryStart
    /// `replacing`: the id of a study reminder still on screen that this one takes the place of.
    func start(_ request: ClaimedRequest, fireAt: String, replacing: UInt32?) -> DeliveryStart
    func judge(_ outcome: Spawn.Outcome, program: String) -> String?
}

extension DeliverySink {
    public func judge(_ outcome: Spawn.Outcome, program: String) -> String? { describe(outcome, program) }
    public func start(_ request: ClaimedRequest, fireAt: String, replacing: UInt32?) -> DeliveryStart { start(request, fireAt: fireAt) }
}

/// `identifier<TAB>fire_at<TAB>title`, one line per delivery, written at once (no buffering).
public struct StdoutSink: DeliverySink {
    public let name = "stdout"
    /// Writes the line (the context's output); nil once written, else why not.
    var output: (String) -> String?

    public init(output: @escaping (String) -> String?) { self.output = output }

    public func start(_ request: ClaimedRequest, fireAt: String) -> DeliveryStart {
        .finished(error: output(Self.line(identifier: request.identifier, fireAt: fireAt, title: request.title)))
    }

    /// Exactly one line of three tab-separated fields, whatever the texts hold: every control scalar
    /// (tab, CR, LF, VT, FF, ESC, NEL and the other C0/C1 controls, DEL, U+2028/U+2029) becomes a space.
    static func line(identifier: String, fireAt: String, title: String) -> String {
        let clean = TerminalText.flattened
        return "\(clean(identifier))\t\(clean(fireAt))\t\(clean(title))\n"
    }
}

/// A freedesktop desktop notification through `notify-send` (Debian: libnotify-bin).
public struct NotifySink: DeliverySink {
    public let name = "notify"
    var appName = "planner"
    /// `--urgency` and `--icon` when given; else the settings each request was claimed under.
    var urgency: String?
    var icon: String?
    var busAddress: String?
    /// A live ticker offers "Start studying" and "Snooze" on study reminders and waits for the answer in its
    /// poll loop; `tick --once` (cron) cannot wait, so its reminders have no actions.
    var answerable = false
    /// Where the session bus and the data folders are looked up (the context's environment).
    var environment: (String) -> String?

    public init(
        appName: String, urgency: String?, icon: String?, busAddress: String?, answerable: Bool,
        environment: @escaping (String) -> String?
    ) {
        self.appName = appName
        self.urgency = urgency
        self.icon = icon
        self.busAddress = busAddress
        self.answerable = answerable
        self.environment = environment
    }

    /// Whether this request's notification carries actions (and its notify-send stays to report the answer).
    func offersActions(_ request: ClaimedRequest) -> Bool { answerable && request.isStudyReminder }

    public func start(_ request: ClaimedRequest, fireAt: String) -> DeliveryStart { start(request, fireAt: fireAt, replacing: nil) }

    public func start(_ request: ClaimedRequest, fireAt: String, replacing: UInt32?) -> DeliveryStart {
        let actions = offersActions(request)
        let arguments = self.arguments(request, replacing: replacing, server: actions ? serverName() : nil)
        var extra: [String: String] = [:]
        if let busAddress { extra["DBUS_SESSION_BUS_ADDRESS"] = busAddress }
        switch Spawn.start(arguments, extraEnvironment: extra, captureOutput: actions) {
        case .success(let child): return .running(child, program: "notify-send", timeoutMilliseconds: 10_000)
        case .failure(let failure): return .finished(error: "cannot run \(failure.why)")
        }
    }

    /// notify-send's command line for a request; `server` (GetServerInformation's name) picks the actions
    /// of one that offers them.
    func arguments(_ request: ClaimedRequest, replacing: UInt32?, server: String?) -> [String] {
        // No expiry (0; notify-send sends -1, the server's default, without it): the reminder stays until
        // answered, dismissed, replaced by the next one or closed when its day is opened. dunst's default
        // took it off after 10 s, its answers with it. GNOME Shell ignores the request (its tray keeps it).
        var arguments = ["notify-send", "--app-name=\(appName)", "--urgency=\(urgency ?? request.urgency)", "--expire-time=0"]
        // One study reminder on screen at a time: a new one takes the place of the last still showing.
        if let replacing { arguments.append("--replace-id=\(replacing)") }
        if offersActions(request) {
            // notify-send prints the id once shown, then the key of the action chosen, and exits when the
            // bubble closes. stdbuf: line by line, not when it exits, since stdout is a pipe.
            arguments =
                ["stdbuf", "-oL"] + arguments + ["--print-id"]
                + Self.actionArguments(server: server, snooze: SettingKey.formatDuration(request.snoozeMilliseconds))
        }
        let icon = Self.iconArgument(icon ?? request.icon, environment: environment)
        if !icon.isEmpty { arguments.append("--icon=\(icon)") }
        if !request.sound.isEmpty { arguments.append("--hint=string:sound-name:\(request.sound)") }
        // `--` so a title starting with '-' is text, not an option. The summary is plain text, but the
        // body is markup for servers with "body-markup" (dunst, GNOME Shell, Plasma, mako ...): a body
        // is text here, so it is escaped, or "Tom & Jerry" or "<b>" would break or vanish.
        arguments += ["--", request.title, Self.markupEscaped(request.body)]
        return arguments
    }

    /// Servers that show the "default" action (a click on the bubble) as an entry or button of its own:
    /// dunst's context menu, `makoctl menu` and xfce4-notifyd's buttons. There it is the only "Start
    /// studying": a `start` action too would be a second one (and makoctl, picking by label, invokes neither).
    static let serversShowingDefault: Set<String> = ["dunst", "mako", "Xfce Notify Daemon"]
    /// The snooze action's key. dunst lists actions in its hash table's order, not the order sent, and
    /// dmenu preselects the first line: with this key "Start studying" comes first (with `snooze`, Snooze did).
    static let snoozeKey = "later"

    /// `--action` arguments: a click on the bubble starts studying everywhere; servers that draw no button
    /// for "default" (GNOME Shell, and any server not known otherwise) get a "Start studying" button too.
    static func actionArguments(server: String?, snooze: String) -> [String] {
        let start = "--action=default=Start studying"
        let later = "--action=\(snoozeKey)=Snooze \(snooze)"
        guard let server, serversShowingDefault.contains(server) else { return [start, "--action=start=Start studying", later] }
        // makoctl lists the actions last sent first: Snooze goes first so that "Start studying" is on top.
        return server == "mako" ? [later, start] : [start, later]
    }

    /// What an action key notify-send printed means (nil: not one of ours).
    public static func answer(forKey key: String) -> AnswerAction? {
        key == snoozeKey ? .snooze : AnswerAction(rawValue: key)
    }

    /// The notification server's name (GetServerInformation), or nil if it does not answer within 0.4 s:
    /// time for the bus to start one on demand (dunst in ~30 ms, xfce4-notifyd in ~0.25 s).
    func serverName() -> String? {
        let call = [
            "dbus-send", "--session", "--print-reply", "--reply-timeout=400", "--dest=org.freedesktop.Notifications",
            "/org/freedesktop/Notifications", "org.freedesktop.Notifications.GetServerInformation",
        ]
        guard let reply = Spawn.output(of: call, extraEnvironment: busEnvironment, timeoutMilliseconds: 450) else { return nil }
        return Self.firstString(inReply: reply)
    }

    /// The first string of a reply as `dbus-send --print-reply` prints it: `   string "dunst"`.
    static func firstString(inReply reply: String) -> String? {
        for line in reply.split(separator: "\n") {
            let text = line.drop { $0 == " " }
            if text.hasPrefix("string \""), text.hasSuffix("\""), text.count >= 9 { return String(text.dropFirst(8).dropLast()) }
        }
        return nil
    }

    private var busEnvironment: [String: String] { busAddress.map { ["DBUS_SESSION_BUS_ADDRESS": $0] } ?? [:] }

    public func judge(_ outcome: Spawn.Outcome, program: String) -> String? {
        guard let error = describe(outcome, program) else { return nil }
        // notify-send's own message goes to stderr only; say in the recorded error when the cause is
        // that no session bus is listening (checked now: a live ticker's bus can come and go).
        if case .exited = outcome, SessionBus.reachableAddress(environment: environment) == nil {
            let set = { (name: String) in environment(name).flatMap { $0.isEmpty ? nil : $0 } }
            let place =
                set("DBUS_SESSION_BUS_ADDRESS").map { "DBUS_SESSION_BUS_ADDRESS=\($0)" }
                ?? set("XDG_RUNTIME_DIR").map { "\($0)/bus" } ?? "DBUS_SESSION_BUS_ADDRESS (not set)"
            return error + " (no D-Bus session bus is listening at \(place); is a desktop session running?)"
        }
        return error
    }

    /// `planner` is the planner's own icon, passed by its file's path (looked up like any data file:
    /// $XDG_DATA_HOME, else ~/.local/share, then $XDG_DATA_DIRS); when no setup or package installed it,
    /// the theme name `appointment-soon`. Any other name or path goes as it is.
    static func iconArgument(_ icon: String, environment: (String) -> String?) -> String {
        guard icon == "planner" else { return icon }
        let home =
            environment("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? environment("HOME").map { $0 + "/.local/share" }
        let system = (environment("XDG_DATA_DIRS").flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        for folder in [home].compactMap({ $0 }) + system {
            let path = folder + "/" + PlannerIcon.relativePath
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG { return path }
        }
        return "appointment-soon"
    }

    /// Takes a notification off the screen (CloseNotification), without waiting: the day it reminds of
    /// was opened. dbus-send comes with the session bus (Debian: dbus-bin).
    func close(_ id: UInt32) -> Spawn.Child? {
        var extra: [String: String] = [:]
        if let busAddress { extra["DBUS_SESSION_BUS_ADDRESS"] = busAddress }
        let call = [
            "dbus-send", "--session", "--type=method_call", "--dest=org.freedesktop.Notifications",
            "/org/freedesktop/Notifications", "org.freedesktop.Notifications.CloseNotification", "uint32:\(id)",
        ]
        if case .success(let child) = Spawn.start(call, extraEnvironment: extra) { return child }
        return nil
    }

    /// The body as Pango/freedesktop markup text: `&`, `<` and `>` as entities.
    static func markupEscaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

/// No --sink: each delivery goes to the desktop when a session bus is reachable at that moment, else to
/// stdout. A ticker started before the desktop (or left running after it) follows it.
public struct AutoSink: DeliverySink {
    public var name: String { "auto" }
    var notify: NotifySink
    /// Where a delivery goes when no bus is reachable (the context's output).
    var output: (String) -> String?

    public init(notify: NotifySink, output: @escaping (String) -> String?) {
        self.notify = notify
        self.output = output
    }

    func current() -> DeliverySink {
        guard let address = SessionBus.reachableAddress(environment: notify.environment) else { return StdoutSink(output: output) }
        var chosen = notify
        chosen.busAddress = address
        return chosen
    }

    public func start(_ request: ClaimedRequest, fireAt: String) -> DeliveryStart { current().start(request, fireAt: fireAt) }
}

/// Runs PROGRAM [ARG…] directly with the request in its environment.
public struct ExecSink: DeliverySink {
    public let name = "exec"
    var command: [String]

    public init(command: [String]) { self.command = command }

    public func start(_ request: ClaimedRequest, fireAt: String) -> DeliveryStart {
        let environment = [
            "PLANNER_ID": request.identifier, "PLANNER_TITLE": request.title,
            "PLANNER_BODY": request.body, "PLANNER_FIRE_AT": fireAt,
        ]
        switch Spawn.start(command, extraEnvironment: environment) {
        case .success(let child): return .running(child, program: command[0], timeoutMilliseconds: 60_000)
        case .failure(let failure): return .finished(error: "cannot run \(failure.why)")
        }
    }
}

func describe(_ outcome: Spawn.Outcome, _ program: String) -> String? {
    switch outcome {
    case .exited(0): return nil
    case .exited(let code): return "\(program) exited with status \(code)"
    case .signalled(let signal): return "\(program) was killed by signal \(signal)"
    case .timedOut: return "\(program) did not finish in time and was killed"
    case .interrupted: return "the ticker was stopped while \(program) ran"
    case .couldNotStart(let why): return "cannot run \(why)"
    }
}

public enum SessionBus {
    /// The session bus address if one is reachable: DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus,
    /// else /run/user/UID/bus (where cron and systemd leave it).
    public static func reachableAddress(environment: (String) -> String?) -> String? {
        if let address = environment("DBUS_SESSION_BUS_ADDRESS"), !address.isEmpty {
            guard let range = address.firstRange(of: "unix:path=") else { return address }
            let path = address[range.upperBound...].prefix { $0 != "," && $0 != ";" }
            return canConnect(String(path)) ? address : nil
        }
        if let runtime = environment("XDG_RUNTIME_DIR"), !runtime.isEmpty, canConnect(runtime + "/bus") {
            return "unix:path=\(runtime)/bus"
        }
        let standard = "/run/user/\(getuid())/bus"
        return canConnect(standard) ? "unix:path=\(standard)" : nil
    }

    private static func canConnect(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
