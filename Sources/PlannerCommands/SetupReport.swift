import PlannerCore
import PlannerSystem
import PlannerTicker

/// What `planner setup` tells the user besides the files: what closes the day, what delivers the
/// reminders and when, and a warning when nothing here would show one.
enum SetupReport {
    static func explain(_ f: SetupFacts, _ ctx: RunContext) {
        let out = ctx.output
        if f.loginHook {
            out.line(
                "what closes the day: logging in (once per login session; tmux, su - and nested shells do not count again), \"Start studying\" on a reminder, the Start studying launcher, planner study"
            )
        } else {
            out.line(
                "what closes the day: \"Start studying\" on a reminder, the Start studying launcher, or planner study (e.g. wrapping your study program); logging in does not (--login-hook makes it, for an account used only for study)"
            )
        }
        out.line(
            "reminders: a live ticker starts with your desktop session (autostart\(f.systemdUser ? ", or planner-tick.service where the session starts graphical-session.target" : "")), with buttons, on time"
        )
        if !f.systemdUser {
            out.line("reminders without a live ticker: cron checks every minute: no buttons, up to a minute late")
        }
        let env = ctx.environment
        let desktop = [env("DISPLAY"), env("WAYLAND_DISPLAY")].contains { !($0 ?? "").isEmpty }
        if !desktop {
            out.line(
                "warning: no desktop session here (no $DISPLAY or $WAYLAND_DISPLAY): reminders show only once you log in to a desktop\(f.systemdUser ? "" : "; until then cron's are attempted and recorded failed")"
            )
        } else if SessionBus.reachableAddress(environment: env) == nil {
            out.line(
                "warning: no session bus here ($DBUS_SESSION_BUS_ADDRESS, $XDG_RUNTIME_DIR/bus): the ticker cannot show notifications; install dbus-user-session (or start the desktop with dbus-run-session)"
            )
        } else if !notificationServer(ctx) {
            out.line(
                "warning: no notification server on the session bus (none runs, none can be started): install one (dunst, xfce4-notifyd, mako) or use a desktop that has its own"
            )
        }
        if !SetupFiles.onPath("notify-send", path: env("PATH")) {
            out.line("warning: notify-send is missing: no reminder can be shown; install libnotify-bin")
        }
    }

    /// Whether org.freedesktop.Notifications has an owner on the session bus or can be started there
    /// (D-Bus activation); true when dbus-send cannot tell.
    static func notificationServer(_ ctx: RunContext) -> Bool {
        var answered = false
        for call in ["ListNames", "ListActivatableNames"] {
            guard
                let r = ctx.runProgram([
                    "dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus",
                    "/org/freedesktop/DBus", "org.freedesktop.DBus.\(call)",
                ]), r.status == 0
            else { continue }
            answered = true
            if r.output.contains("\"org.freedesktop.Notifications\"") { return true }
        }
        return !answered
    }
}

extension SetupCommand {
    /// The items the Debian package already installs system-wide (their ~/.local paths): found where the
    /// package puts them, they are not copied again. The launcher only for the default database (the
    /// package's runs `planner study` on it).
    static func packagedFiles(_ f: SetupFacts) -> Set<String> {
        var found: Set<String> = []
        let pairs = [
            ("/usr/share/man/man1/planner.1.gz", f.dataHome + "/man/man1/planner.1"),
            ("/usr/share/bash-completion/completions/planner", f.dataHome + "/bash-completion/completions/planner"),
            ("/usr/share/zsh/vendor-completions/_planner", f.dataHome + "/zsh/site-functions/_planner"),
            ("/usr/share/fish/vendor_completions.d/planner.fish", f.configHome + "/fish/completions/planner.fish"),
            ("/usr/share/" + PlannerIcon.relativePath, f.dataHome + "/" + PlannerIcon.relativePath),
        ]
        for (system, user) in pairs where SetupFiles.exists(system) { found.insert(user) }
        if SetupFiles.exists("/usr/share/applications/planner-study.desktop"), f.database == f.dataHome + "/planner/planner.db" {
            found.insert(f.dataHome + "/applications/planner-study.desktop")
        }
        return found
    }
}
