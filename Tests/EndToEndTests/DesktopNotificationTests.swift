import Foundation
import PlannerHarness
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `planner tick --sink notify` against a real desktop notification stack, private to each test: its own
/// session bus (`dbus-daemon`), its own X display (`Xvfb`) and a real freedesktop notification server
/// (`dunst`) with a config written here. dunst runs a recording script for every notification it receives,
/// so the checks are on what the server got, not on notify-send's exit status.
///
/// Needs the Debian packages dbus, xvfb, dunst and libnotify-bin (CI installs them); without them these
/// tests fail and say what to install.
@Suite struct DesktopNotificationTests {
    static let title = "Time to study? $(id)"
    static let body = "Open the app & start today’s lesson <b>"

    @Test func notifySinkReachesARealNotificationServerOnAPrivateBus() throws {
        let h = try Harness()
        defer { try? FileManager.default.removeItem(atPath: h.dir) }
        let desktop = try PrivateDesktop(in: h.dir)
        defer { desktop.stop() }

        let added = try h.plannerOK(
            ["add", "--at", "2026-11-23T10:02", "--title", Self.title, "--body", Self.body, "--id", "Noti_Study_Now"],
            now: "2026-11-23T10:01")
        #expect(added.hasPrefix("added Noti_Study_Now"))

        // The planner needs the bus only: no DISPLAY.
        let tick = try h.planner(
            ["tick", "--once", "--db", h.db, "--now", "2026-11-23T10:02", "--sink", "notify", "--urgency", "critical", "--verbose"],
            env: ["DBUS_SESSION_BUS_ADDRESS": desktop.busAddress])
        #expect(tick.status == 0, "tick failed: \(tick.err)")
        #expect(tick.err.contains("delivered Noti_Study_Now"), "stderr: \(tick.err)")
        #expect(!tick.err.contains("failed"), "stderr: \(tick.err)")

        // What the server received (dunst's script arguments: appname, summary, body, icon, urgency).
        let got = try desktop.waitForNotifications(count: 1)[0]
        #expect(got.appName == "planner")
        #expect(got.summary == Self.title)
        // The body is markup for dunst (it advertises "body-markup"): text must arrive escaped ...
        #expect(got.body == "Open the app &amp; start today’s lesson &lt;b&gt;")
        #expect(got.urgency == "CRITICAL")
        #expect(got.icon == "appointment-soon")  // the planner's icon is not installed in this HOME: its fallback name
        // ... so that what dunst renders, `<b>%s</b>\n%b` as Pango markup, is well-formed and reads as typed.
        #expect(
            try desktop.renderedMessages().contains(
                "<b>Time to study? $(id)</b>\nOpen the app &amp; start today’s lesson &lt;b&gt;"))
        #expect(!desktop.serverLog().contains("Unable to parse markup"), "dunst: \(desktop.serverLog())")

        // The planner recorded the delivery, through notify.
        let history = try parseHistory(h.plannerOK(["history", "--json"], now: "2026-11-23T10:03"))
        let entry = try #require(history.first { $0["identifier"] as? String == "Noti_Study_Now" })
        #expect(entry["state"] as? String == "delivered")
        #expect(entry["reason"] as? String == "delivered through notify")
        #expect(entry["error"] is NSNull)
        #expect(try h.sqlite("SELECT state, attempts FROM request WHERE identifier = 'Noti_Study_Now'") == "delivered|1")
        #expect(
            try h.sqlite("SELECT title, body FROM delivered_notifications WHERE identifier = 'Noti_Study_Now'")
                == "\(Self.title)|\(Self.body)")
    }

    @Test func withoutSinkOptionNotifyIsChosenWhenTheBusIsReachable() throws {
        let h = try Harness()
        defer { try? FileManager.default.removeItem(atPath: h.dir) }
        let desktop = try PrivateDesktop(in: h.dir)
        defer { desktop.stop() }

        _ = try h.plannerOK(
            ["add", "--at", "2026-11-23T10:02", "--title", "Default sink", "--body", "plain body"],
            now: "2026-11-23T10:01")
        let tick = try h.planner(
            ["tick", "--once", "--db", h.db, "--now", "2026-11-23T10:02"],
            env: ["DBUS_SESSION_BUS_ADDRESS": desktop.busAddress])
        #expect(tick.status == 0, "tick failed: \(tick.err)")
        #expect(tick.out.isEmpty, "the stdout sink was used: \(tick.out)")

        let got = try desktop.waitForNotifications(count: 1)[0]
        #expect(got.appName == "planner")
        #expect(got.summary == "Default sink")
        #expect(got.body == "plain body")
        #expect(got.urgency == "NORMAL")
        #expect(try h.sqlite("SELECT state, reason FROM request_history") == "delivered|delivered through notify")
    }

    @Test func noBusListeningFailsAfterRetriesAndSaysWhy() throws {
        try PrivateDesktop.requireTools()
        let h = try Harness()
        defer { try? FileManager.default.removeItem(atPath: h.dir) }
        let nowhere = h.dir + "/no-bus-here"  // nothing listens: not even a socket file

        _ = try h.plannerOK(
            ["add", "--at", "2026-11-23T10:02", "--title", Self.title, "--body", Self.body, "--id", "Noti_Unheard"],
            now: "2026-11-23T10:01")
        let started = Date()
        let tick = try h.planner(
            ["tick", "--once", "--db", h.db, "--now", "2026-11-23T10:02", "--sink", "notify", "--grace", "3s"],
            env: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(nowhere)"])
        let took = Date().timeIntervalSince(started)

        // A --once run says a delivery failed with its exit status (cron mails the last line).
        #expect(tick.status == 1)
        #expect(
            tick.err.hasSuffix("\n")
                && tick.err.split(separator: "\n").last?.hasPrefix("error: delivery failed: Noti_Unheard: notify-send exited") == true,
            "stderr: \(tick.err)")
        #expect(tick.out.isEmpty)
        // Retried with backoff (1 s, then 2 s would pass the 3 s grace), then given up.
        #expect(tick.err.contains("through notify failed (attempt 1)"), "stderr: \(tick.err)")
        #expect(tick.err.contains("through notify failed (attempt 2)"), "stderr: \(tick.err)")
        #expect(tick.err.contains("gave up on Noti_Unheard"), "stderr: \(tick.err)")
        // Why: notify-send's own message, and the planner's diagnosis naming the address.
        #expect(tick.err.contains("Could not connect"), "stderr: \(tick.err)")
        #expect(
            tick.err.contains("no D-Bus session bus is listening at DBUS_SESSION_BUS_ADDRESS=unix:path=\(nowhere)"),
            "stderr: \(tick.err)")
        #expect(took >= 0.9 && took < 10, "took \(took) s")

        let history = try parseHistory(h.plannerOK(["history", "--json"], now: "2026-11-23T10:03"))
        let entry = try #require(history.first { $0["identifier"] as? String == "Noti_Unheard" })
        #expect(entry["state"] as? String == "failed")
        #expect(entry["reason"] as? String == "every attempt through notify failed")
        let error = try #require(entry["error"] as? String)
        #expect(error.hasPrefix("notify-send exited with status 1"), "error: \(error)")
        #expect(error.contains("no D-Bus session bus is listening"), "error: \(error)")
        // Attempts at +0 s and +1 s; the next (+3 s and a few ms) would be past the grace period.
        #expect(try h.sqlite("SELECT state, attempts >= 2 FROM request WHERE identifier = 'Noti_Unheard'") == "failed|1")
        #expect(try h.sqlite("SELECT count(*) FROM delivered_notifications") == "0")
    }
}

private func parseHistory(_ json: String) throws -> [[String: Any]] {
    try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
}

/// A notification as dunst handed it to the recording script.
struct ReceivedNotification {
    var appName, summary, body, icon, urgency: String
}

/// dbus-daemon + Xvfb + dunst, started for one test and stopped (in reverse order) by `stop()`.
final class PrivateDesktop {
    /// Program on PATH -> the Debian package that provides it.
    static let tools: [(program: String, package: String)] = [
        ("dbus-daemon", "dbus"), ("dbus-send", "dbus"), ("Xvfb", "xvfb"), ("dunst", "dunst"),
        ("notify-send", "libnotify-bin"), ("sqlite3", "sqlite3"),
    ]

    let dir: String
    private(set) var busAddress = ""
    private(set) var display = ""
    private var started: [Daemon] = []
    private var receivedDir: String { dir + "/received" }
    private var dunstLogPath: String { dir + "/dunst.log" }

    static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Fails (never skips) when a tool is missing, naming the packages to install.
    static func requireTools() throws {
        let missing = tools.filter { which($0.program) == nil }
        guard missing.isEmpty else {
            let packages = Array(Set(tools.map(\.package))).sorted().joined(separator: " ")
            throw HarnessError(
                """
                desktop notification tests need \(missing.map(\.program).joined(separator: ", ")) on PATH: \
                apt-get install -y \(packages)
                """)
        }
    }

    init(in dir: String) throws {
        try Self.requireTools()
        self.dir = dir
        do { try start() } catch {
            stop()
            throw error
        }
    }

    private func start() throws {
        try FileManager.default.createDirectory(atPath: receivedDir, withIntermediateDirectories: true)
        let base = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": dir]

        // 1. A private session bus whose socket lives in this test's folder.
        let bus = try launch(
            "dbus-daemon",
            [
                "--session", "--nofork", "--nopidfile", "--print-address=1",
                "--address=unix:path=\(dir)/bus",
            ], env: base, stdoutPipe: true)
        busAddress = try readLine(from: bus, what: "dbus-daemon's address")
        guard busAddress.hasPrefix("unix:path=\(dir)/bus") else { throw HarnessError("unexpected bus address \(busAddress)") }

        // 2. An X server on a display number it picks and claims itself (-displayfd: no race between tests).
        let x = try launch(
            "Xvfb", ["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "800x600x24"],
            env: base, stdoutPipe: true)
        let number = try readLine(from: x, what: "Xvfb's display number")
        guard Int(number) != nil else { throw HarnessError("Xvfb printed '\(number)' instead of a display number") }
        display = ":" + number

        // 3. dunst with its own config: every notification runs record.sh, which saves the five arguments
        //    dunst passes (appname, summary, body, icon, urgency) NUL-separated, one file per notification.
        let script = dir + "/record.sh"
        try Harness.writeProgram(
            """
            #!/bin/sh
            out="\(receivedDir)/$DUNST_ID"
            printf '%s\\0' "$@" > "$out.tmp" && mv "$out.tmp" "$out"

            """, to: script)
        // dunst's context menu (`dunstctl context`) lists every action as "#Label (summary) [id,key]" and
        // invokes the one its dmenu prints: this one prints the line holding the text in `choice`, the way
        // a person picks "Snooze" from the menu (`answer(_:)`).
        let menu = dir + "/dmenu.sh"
        try Harness.writeProgram(
            """
            #!/bin/sh
            cat > "\(dir)/menu.tmp"
            grep -m1 -F -- "$(cat "\(dir)/choice")" "\(dir)/menu.tmp"
            mv "\(dir)/menu.tmp" "\(dir)/menu.txt"

            """, to: menu)
        let config = dir + "/dunstrc"
        try """
        [global]
            dmenu = \(menu)
            markup = full
            format = "<b>%s</b>\\n%b"
            history_length = 20
            sticky_history = yes

        # Notifications stay until answered or closed (tests check what closes them, not a timeout).
        [urgency_low]
            timeout = 0
        [urgency_normal]
            timeout = 0
        [urgency_critical]
            timeout = 0

        [record_everything]
            summary = "*"
            script = \(script)

        """.write(toFile: config, atomically: true, encoding: .utf8)
        let dunst = try launch(
            "dunst", ["-config", config],
            env: base.merging(["DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": busAddress]) { $1 },
            logTo: dunstLogPath)

        // Wait until *this* dunst owns org.freedesktop.Notifications, so notify-send never triggers D-Bus
        // activation of some other server (dunst installs an activation file for the name).
        let deadline = Date().addingTimeInterval(10)
        while true {
            guard !dunst.hasExited() else { throw HarnessError("dunst exited: \(serverLog())") }
            if let owner = try? busCall(
                ["org.freedesktop.DBus.GetConnectionUnixProcessID", "string:org.freedesktop.Notifications"],
                dest: "org.freedesktop.DBus", path: "/org/freedesktop/DBus"),
                owner.split(separator: "\n").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "uint32 \(dunst.pid)" })
            {
                break
            }
            guard Date() < deadline else { throw HarnessError("dunst did not take org.freedesktop.Notifications: \(serverLog())") }
            usleep(50_000)
        }
    }

    /// Chooses the action labelled `label` ("Snooze") of the notification on screen from dunst's context
    /// menu, as a user would. Returns the menu dunst offered.
    @discardableResult
    func answer(_ label: String) throws -> String {
        try "#\(label)".write(toFile: dir + "/choice", atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: dir + "/menu.txt")
        let r = try Harness.run(
            "/usr/bin/dunstctl", ["context"],
            env: [
                "DBUS_SESSION_BUS_ADDRESS": busAddress,
                "PATH": "/usr/bin:/bin",
            ])
        guard r.status == 0 else { throw HarnessError("dunstctl context: \(r.err)") }
        // dunst runs the menu after dunstctl returns: wait for the menu it offered.
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: dir + "/menu.txt") {
            guard Date() < deadline else { throw HarnessError("dunst did not open its context menu") }
            usleep(20_000)
        }
        return String(decoding: FileManager.default.contents(atPath: dir + "/menu.txt") ?? Data(), as: UTF8.self)
    }

    /// Closes every notification on screen without an action (a dismissal).
    func dismissAll() throws {
        let r = try Harness.run("/usr/bin/dunstctl", ["close-all"], env: ["DBUS_SESSION_BUS_ADDRESS": busAddress, "PATH": "/usr/bin:/bin"])
        guard r.status == 0 else { throw HarnessError("dunstctl close-all: \(r.err)") }
    }

    /// Stops dunst, Xvfb and dbus-daemon, in that order: SIGTERM (Xvfb then removes its lock file and
    /// socket), SIGKILL after 3 s. Safe to call twice.
    func stop() {
        for daemon in started.reversed() {
            if !daemon.hasExited() {
                kill(daemon.pid, SIGTERM)
                let deadline = Date().addingTimeInterval(3)
                while !daemon.hasExited() && Date() < deadline { usleep(10_000) }
                if !daemon.hasExited() {
                    kill(daemon.pid, SIGKILL)
                    while !daemon.hasExited() { usleep(10_000) }
                }
            }
            if let fd = daemon.stdout { close(fd) }
        }
        started = []
    }

    /// The notifications dunst has received, waiting up to 10 s for `count` of them.
    func waitForNotifications(count: Int) throws -> [ReceivedNotification] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: receivedDir)) ?? [])
                .filter { !$0.hasSuffix(".tmp") }.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }
            if names.count >= count {
                return try names.map { name in
                    let data = try Data(contentsOf: URL(fileURLWithPath: receivedDir + "/" + name))
                    let fields = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
                    guard fields.count >= 5 else { throw HarnessError("record \(name) has \(fields.count) fields") }
                    return ReceivedNotification(appName: fields[0], summary: fields[1], body: fields[2], icon: fields[3], urgency: fields[4])
                }
            }
            guard Date() < deadline else {
                throw HarnessError("dunst received \(names.count) of \(count) notifications in 10 s; dunst log: \(serverLog())")
            }
            usleep(20_000)
        }
    }

    /// Closes what dunst shows and returns its history as dbus-send prints it (each entry's `message` is the
    /// Pango markup dunst renders).
    func renderedMessages() throws -> String {
        _ = try busCall(["org.dunstproject.cmd0.NotificationCloseAll"])
        return try busCall(["org.dunstproject.cmd0.NotificationListHistory"])
    }

    func serverLog() -> String {
        (try? String(contentsOfFile: dunstLogPath, encoding: .utf8)) ?? ""
    }

    private func busCall(
        _ call: [String], dest: String = "org.freedesktop.Notifications",
        path: String = "/org/freedesktop/Notifications"
    ) throws -> String {
        let r = try Harness.run(
            Self.which("dbus-send")!, ["--bus=\(busAddress)", "--print-reply", "--dest=\(dest)", path] + call,
            env: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        guard r.status == 0 else { throw HarnessError("dbus-send \(call[0]) failed: \(r.err)") }
        return r.out
    }

    /// A program started by posix_spawn rather than Foundation's Process, which hands its children the
    /// test runner's signal mask (SIGTERM blocked: they would ignore a polite stop) and can leak other
    /// tests' pipe ends into a long-lived child.
    final class Daemon {
        let name: String
        let pid: pid_t
        let stdout: Int32?
        private var reaped = false
        init(name: String, pid: pid_t, stdout: Int32?) { (self.name, self.pid, self.stdout) = (name, pid, stdout) }

        /// Reaps the process if it has exited.
        func hasExited() -> Bool {
            if reaped { return true }
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno == ECHILD) { reaped = true }
            return reaped
        }
    }

    // glibc >= 2.34 functions that Swift's Glibc module hides behind _GNU_SOURCE.
    private static let pipe2 = unsafeBitCast(
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2")!,
        to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
    private static let addClosefrom = unsafeBitCast(
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")!,
        to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)

    private func launch(
        _ program: String, _ args: [String], env: [String: String], stdoutPipe: Bool = false,
        logTo log: String? = nil
    ) throws -> Daemon {
        let path = Self.which(program)!
        let logFD = open(log ?? "\(dir)/\(program).log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard logFD >= 0 else { throw HarnessError("cannot create \(program)'s log: \(String(cString: strerror(errno)))") }
        defer { close(logFD) }
        var fds: [Int32] = [-1, -1]
        if stdoutPipe {
            guard Self.pipe2(&fds, O_CLOEXEC) == 0 else { throw HarnessError("pipe2: \(String(cString: strerror(errno)))") }
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe ? fds[1] : logFD, 1)
        posix_spawn_file_actions_adddup2(&actions, logFD, 2)
        Self.addClosefrom(&actions, 3)  // nothing else of the test process leaks into a long-lived child

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGUSR1, SIGUSR2, SIGCHLD, SIGALRM] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([path] + args).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        if stdoutPipe { close(fds[1]) }
        guard rc == 0 else {
            if stdoutPipe { close(fds[0]) }
            throw HarnessError("cannot start \(path): \(String(cString: strerror(rc)))")
        }
        let daemon = Daemon(name: program, pid: pid, stdout: stdoutPipe ? fds[0] : nil)
        started.append(daemon)
        return daemon
    }

    /// The first line the process writes on stdout, waiting up to 10 s (never to EOF: it keeps running).
    private func readLine(from p: Daemon, what: String) throws -> String {
        let fd = p.stdout!
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(10)
        while !bytes.contains(UInt8(ascii: "\n")) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw HarnessError("no \(what) in 10 s") }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(left * 1000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw HarnessError(
                    "\(p.name) exited before printing \(what); log: "
                        + ((try? String(contentsOfFile: "\(dir)/\(p.name).log", encoding: .utf8)) ?? ""))
            }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}

/// With the planner's icon installed (as `planner setup` does), notifications carry its file's path, which
/// dunst loads.
@Suite struct NotificationIconTests {
    @Test func theInstalledIconGoesByItsPath() throws {
        var h = try Harness()
        let desktop = try PrivateDesktop(in: h.dir)
        defer { desktop.stop() }
        h.env["DBUS_SESSION_BUS_ADDRESS"] = desktop.busAddress
        let package = h.dir + "/package"
        #expect(try h.planner(["setup", "--package-files", package]).status == 0)
        let icon = h.dir + "/.local/share/icons/hicolor/48x48/apps/planner.xpm"
        try FileManager.default.createDirectory(atPath: (icon as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: package + "/usr/share/icons/hicolor/48x48/apps/planner.xpm", toPath: icon)
        _ = try h.plannerOK(["add", "--at", "2026-11-23T10:02", "--title", "icon", "--id", "icon"], now: "2026-11-23T10:01")
        let tick = try h.planner(["tick", "--once", "--db", h.db, "--now", "2026-11-23T10:02", "--sink", "notify"])
        #expect(tick.status == 0, "\(tick.err)")
        let got = try desktop.waitForNotifications(count: 1)[0]
        #expect(got.icon == icon, "\(got.icon)")
        #expect(!desktop.serverLog().lowercased().contains("icon"), "dunst: \(desktop.serverLog())")
    }
}
