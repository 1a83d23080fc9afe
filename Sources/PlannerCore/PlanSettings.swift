/// What the user owns about their plan: read from the database inside the same transaction as the rest
/// of the plan state, never a constant a command reads.
public struct PlanSettings: Equatable, Sendable {
    public var schedule: Schedule
    public var title: String
    public var body: String
    public var icon: String
    public var urgency: String
    public var graceMilliseconds: Int64
    /// A tz database name, or `system` (the default only: follow /etc/localtime at every run).
    public var zone: String
    /// What `planner study` runs after recording the open, as words (empty: nothing).
    public var studyCommand: [String] = []
    /// How long "Snooze" puts a reminder off.
    public var snoozeMilliseconds: Int64
    /// A freedesktop sound name for desktop notifications (the `sound-name` hint); empty for none.
    public var sound: String
    /// How many days from today the calendar folder holds (`calendar-days`).
    public var calendarDays = 0
    /// Anki's collection on this device (`anki-collection`; empty: none).
    public var ankiCollection = ""
    /// Measurement mode (`experiment`): each study slot after the day's first is withheld at random
    /// (`MeasurementMode`).
    public var experiment = false
    /// The seed every device derives the same for measurement mode's draws: the id of the event whose
    /// `experiment` value won (the store reads it from `register`; `decideEvents` from the batch). Not a
    /// setting anyone types: nil when the mode is off or the id is not known.
    public var experimentSeed: String?
    /// The `usual-time` schedule (`schedule`): the store sets `schedule.usual` from the record where it plans.
    public var usualTime = false

    /// Every key at its declared default (`SettingKey.declaration`): the defaults live there only.
    public static let standard: PlanSettings = {
        var settings = PlanSettings(
            schedule: Schedule(startMinute: 0, endMinute: 0, intervalMinutes: 1, days: .weekdays), title: "", body: "", icon: "", urgency: "",
            graceMilliseconds: 0,
            zone: "", snoozeMilliseconds: 0, sound: "", declaredDefaults: ())
        for key in SettingKey.allCases {
            do throws(SettingError) { try settings.apply(key, key.defaultValue) } catch {
                preconditionFailure("the declared default of \(key.rawValue) does not parse: \(error.message)")
            }
        }
        return settings
    }()

    private init(
        schedule: Schedule, title: String, body: String, icon: String, urgency: String, graceMilliseconds: Int64,
        zone: String, snoozeMilliseconds: Int64, sound: String, declaredDefaults: Void
    ) {
        self.schedule = schedule
        self.title = title
        self.body = body
        self.icon = icon
        self.urgency = urgency
        self.graceMilliseconds = graceMilliseconds
        self.zone = zone
        self.snoozeMilliseconds = snoozeMilliseconds
        self.sound = sound
    }

    /// The declared defaults, with the given values instead (tests build plans this way).
    public init(
        schedule: Schedule? = nil, title: String? = nil, body: String? = nil, icon: String? = nil,
        urgency: String? = nil, graceMilliseconds: Int64? = nil, zone: String? = nil
    ) {
        self = Self.standard
        if let schedule { self.schedule = schedule }
        if let title { self.title = title }
        if let body { self.body = body }
        if let icon { self.icon = icon }
        if let urgency { self.urgency = urgency }
        if let graceMilliseconds { self.graceMilliseconds = graceMilliseconds }
        if let zone { self.zone = zone }
    }

    /// Settings from stored `key → value` text (missing keys take their defaults). Throws the first
    /// value that does not parse: a setting changed by hand with `sqlite3`.
    public init(values: [String: String]) throws(SettingError) {
        self.init()
        for key in SettingKey.allCases {
            guard let text = values[key.rawValue] else { continue }
            try apply(key, text)
        }
    }

    /// Settings from stored text, never failing: a value the planner cannot use (edited by hand with
    /// `sqlite3`, written by another version) takes its default, and is returned with why, so every
    /// command — `config set` and `config reset`, which repair it, and the login's `open` — still runs.
    public static func reading(_ values: [String: String]) -> (settings: PlanSettings, unusable: [UnusableSetting]) {
        var settings = PlanSettings()
        var unusable: [UnusableSetting] = []
        for key in SettingKey.allCases {
            guard let text = values[key.rawValue] else { continue }
            do { try settings.apply(key, text) } catch {
                unusable.append(UnusableSetting(key: key, value: text, why: error.message))
            }
        }
        return (settings, unusable)
    }

    /// Sets one key from its text form. Exhaustive over the keys (no `default:`): a new setting does not
    /// compile until it says where its value goes. Each key's `parse` returns the one kind of value matched.
    public mutating func apply(_ key: SettingKey, _ text: String) throws(SettingError) {
        let value = try key.parse(text)
        switch key {
        case .window:
            if case .window(let start, let end) = value {
                schedule.startMinute = start
                schedule.endMinute = end
            }
        case .interval: if case .minutes(let m) = value { schedule.intervalMinutes = m }
        case .days: if case .days(let d) = value { schedule.days = d }
        case .title: if case .text(let t) = value { title = t }
        case .body: if case .text(let t) = value { body = t }
        case .icon: if case .text(let t) = value { icon = t }
        case .urgency: if case .text(let t) = value { urgency = t }
        case .grace: if case .milliseconds(let ms) = value { graceMilliseconds = ms }
        case .zone: if case .text(let t) = value { zone = t }
        case .studyCommand: if case .words(let w) = value { studyCommand = w }
        case .snooze: if case .milliseconds(let ms) = value { snoozeMilliseconds = ms }
        case .sound: if case .text(let t) = value { sound = t }
        case .calendarDays: if case .count(let n) = value { calendarDays = n }
        case .ankiCollection: if case .text(let t) = value { ankiCollection = t }
        case .experiment: if case .flag(let on) = value { experiment = on }
        case .schedule: if case .text(let t) = value { usualTime = t == "usual-time" }
        // Not the plan's: read where they are used (SyncFolder.swift, CalendarFolder.swift), each on its own.
        case .syncFolder, .deviceName, .calendarFolder: break
        }
    }
}

/// A stored value the planner could not use, and the default it runs with instead.
public struct UnusableSetting: Equatable, Sendable {
    public var key: SettingKey
    public var value: String
    public var why: String

    public init(key: SettingKey, value: String, why: String) {
        self.key = key
        self.value = value
        self.why = why
    }

    /// One line for stderr, `status` and the ticker's log: what is wrong, what is used, how to repair.
    public var warning: String {
        "the stored \(key.rawValue) setting \(TerminalText.quoted(value)) cannot be used (\(why)); using \(key == .zone ? "the system zone" : "the default '\(key.defaultValue)'") until you run planner config set \(key.rawValue) VALUE, or planner config reset \(key.rawValue)"
    }
}

public struct SettingError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// Whose a setting is: the user's plan (the same on every device they use), or this device's alone (a
/// program path that exists here).
public enum SettingScope: String, Sendable {
    case user, device
}

/// A setting's declaration: its default, what it is and what it accepts (for help and errors), whose it is.
public struct SettingDeclaration: Sendable {
    public let defaultValue: String
    public let summary: String
    public let accepts: String
    public let scope: SettingScope
    /// What `config set KEY <Tab>` offers (the default's own value when empty).
    public let completions: [String]

    init(_ defaultValue: String, _ summary: String, accepts: String, scope: SettingScope = .user, completions: [String] = []) {
        self.defaultValue = defaultValue
        self.summary = summary
        self.accepts = accepts
        self.scope = scope
        self.completions = completions.isEmpty ? (defaultValue.isEmpty ? [] : [defaultValue]) : completions
    }
}

/// A setting's name, what it accepts, and its canonical text (what `config` shows and the database holds).
public enum SettingKey: String, CaseIterable, Sendable {
    case window, interval, days, title, body, icon, urgency, grace, zone
    case studyCommand = "study-command"
    case snooze, sound
    case syncFolder = "sync-folder"
    case deviceName = "device-name"
    case calendarFolder = "calendar-folder"
    case calendarDays = "calendar-days"
    case ankiCollection = "anki-collection"
    case experiment
    case schedule

    /// Everything about a setting but its parsing, in one place: `config` and its help, the defaults of a
    /// new plan and of a key a database does not hold yet, and which settings stay on one device all
    /// come from here. A new setting is one case here, one in `parse` and its field in `PlanSettings`;
    /// it needs no migration (a database without its row reads the default and the next write adds it).
    public var declaration: SettingDeclaration {
        switch self {
        case .window:
            SettingDeclaration(
                "09:30-21:30",
                "the study window: the first slot at its start, the last not after its end (an end before the start is on the next date, in the same study day)",
                accepts:
                    "HH:MM-HH:MM (e.g. 09:30-21:30; 20:00-01:30 crosses midnight: Monday's study day has its slots to Tuesday 01:30, named by their own date and time, and lasts until Tuesday 02:00, one interval after its end, so an open at 00:45 closes Monday's day, not Tuesday's)"
            )
        case .interval:
            SettingDeclaration(
                "30m", "the time between two reminders",
                accepts: "whole minutes from 5m to 12h (e.g. 30m, 45m, 1h30m, 90m, 2h)")
        case .days:
            SettingDeclaration(
                "mon-fri", "the study days",
                accepts: "a comma list of mon tue wed thu fri sat sun and ranges (mon-fri), or daily, weekdays, weekends",
                completions: ["mon-fri", "daily", "weekdays", "weekends", "sat-sun"])
        case .title:
            SettingDeclaration(
                "Time to study?", "the reminder's title",
                accepts:
                    "visible text without line breaks, control characters or characters that hide or reorder text (such as U+200B or U+202E), at most 200 characters"
            )
        case .body:
            SettingDeclaration(
                "Start today's lesson: reminders stop for the day once you begin.", "the reminder's text",
                accepts:
                    "text without line breaks, control characters or characters that hide or reorder text (such as U+200B or U+202E), at most 1000 characters"
            )
        case .icon:
            SettingDeclaration(
                "planner", "the desktop notification's icon",
                accepts: "an icon name or file path for desktop notifications (planner: the planner's own, installed by setup; empty for none)")
        case .urgency:
            SettingDeclaration(
                "normal", "the desktop notification's urgency", accepts: "low, normal or critical",
                completions: ["low", "normal", "critical"])
        case .grace:
            SettingDeclaration(
                "15m", "how late a reminder may still be shown", accepts: "a duration from 1m to 24h (e.g. 90s, 15m, 2h)")
        case .zone:
            SettingDeclaration(
                "system", "the plan's time zone (a new database takes the TZ of the command creating it)",
                accepts: "a tz database name such as Europe/Berlin, or system (the zone /etc/localtime names now)")
        case .studyCommand:
            SettingDeclaration(
                "", "what planner study runs after recording the open",
                accepts:
                    "a program and its arguments, split like a shell but run without one (e.g. anki, or xdg-open https://example.org/lesson); empty for none",
                scope: .device)
        case .snooze:
            SettingDeclaration(
                "15m", "how long Snooze puts a reminder off", accepts: "a duration from 1m to 24h (e.g. 10m, 15m, 1h)")
        case .sound:
            SettingDeclaration(
                "", "the sound a desktop notification asks the server to play",
                accepts: "a freedesktop sound name such as message-new-instant or complete (letters, digits, - and _), empty for none")
        case .syncFolder:
            SettingDeclaration(
                "", "a folder a sync engine (Syncthing) shares between your devices: opens, skips, pauses and settings go through it",
                accepts: "an absolute folder path; empty: this device does not sync", scope: .device)
        case .deviceName:
            SettingDeclaration(
                "", "this device's name in planner devices on every device",
                accepts: "visible text without control characters, at most 64 characters; empty: the host name", scope: .device)
        case .calendarFolder:
            SettingDeclaration(
                "",
                "a calendar folder (vdir) the planner keeps as the plan: reminders, alarms and a daily task, for vdirsyncer to carry to a CalDAV server",
                accepts: "an absolute folder path; empty: no calendar folder", scope: .device)
        case .calendarDays:
            SettingDeclaration(
                "14", "how many days from today the calendar folder holds", accepts: "a whole number of days from 1 to 60",
                scope: .device, completions: ["7", "14", "30"])
        case .ankiCollection:
            SettingDeclaration(
                "",
                "Anki's collection.anki2 on this computer: a study day with a review there is opened at its first review (read from a private copy; Anki is never locked or written)",
                accepts: "an absolute file path (planner setup finds it under ~/.local/share/Anki2); empty: none", scope: .device)
        case .schedule:
            SettingDeclaration(
                "grid",
                "when reminders come: grid, every interval of the window until you start; usual-time, up to three a day around your usual start once you have one (the simulator finds it keeps most reminders and passes nowhere: docs/nudging.md)",
                accepts: "grid or usual-time", completions: ["grid", "usual-time"])
        case .experiment:
            SettingDeclaration(
                "off",
                "measurement mode: each reminder after the day's first is held back at random (1 in 5), so that planner stats --nudges can tell what a reminder does for you",
                accepts: "on or off", completions: ["on", "off"])
        }
    }

    public var defaultValue: String { declaration.defaultValue }

    /// What the key accepts, for errors and `--help`.
    public var accepts: String { declaration.accepts }

    /// One line per key for `config --help` and the manual: name, what it is, what it accepts, default.
    public static var helpLines: [String] {
        let width = allCases.map(\.rawValue.count).max() ?? 0
        return allCases.map { key in
            let d = key.declaration
            let name = key.rawValue + String(repeating: " ", count: width - key.rawValue.count)
            return "\(name)  \(d.summary): \(d.accepts)" + (d.defaultValue.isEmpty ? "; default empty" : "; default \"\(d.defaultValue)\"")
                + (d.scope == .device ? " (this device's own)" : "")
        }
    }

    enum Value {
        case window(Int, Int)
        case minutes(Int)
        case days(Weekdays)
        case text(String)
        case milliseconds(Int64)
        case words([String])
        case count(Int)
        case flag(Bool)
    }

    /// Why `text` is not a valid value, or nil when it is.
    public func problem(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch { return error.message }
    }

    /// The canonical text of a valid value: `90m` → `1h30m`, `weekdays` → `mon-fri`.
    public func canonical(_ text: String) throws(SettingError) -> String {
        switch try parse(text) {
        case .window(let s, let e): return "\(Self.clock(s))-\(Self.clock(e))"
        case .minutes(let m): return m % 60 == 0 ? "\(m / 60)h" : m < 60 ? "\(m)m" : "\(m / 60)h\(m % 60)m"
        case .days(let d): return Self.format(d)
        case .text(let t): return t
        case .milliseconds(let ms): return Self.formatDuration(ms)
        case .words: return text
        case .count(let n): return String(n)
        case .flag(let on): return on ? "on" : "off"
        }
    }

    func parse(_ text: String) throws(SettingError) -> Value {
        // Made only when refused: every command parses every stored setting, and the message is dear.
        func bad() -> SettingError { SettingError("invalid \(rawValue) \(TerminalText.quoted(text)): expected \(accepts)") }
        switch self {
        case .window:
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let s = Self.minute(parts[0]), let e = Self.minute(parts[1]) else { throw bad() }
            return .window(s, e)
        case .interval:
            guard let m = Self.minutes(text), (5...720).contains(m) else { throw bad() }
            return .minutes(m)
        case .days:
            guard let d = Self.days(text), !d.isEmpty else { throw bad() }
            return .days(d)
        case .title:
            try refuseHiding(text)
            guard !RequestText.isBlank(text), !TerminalText.containsControl(text), text.unicodeScalars.count <= 200 else { throw bad() }
            return .text(text)
        case .body, .icon:
            try refuseHiding(text)
            guard !TerminalText.containsControl(text), text.unicodeScalars.count <= 1000 else { throw bad() }
            return .text(text)
        case .urgency:
            guard ["low", "normal", "critical"].contains(text) else { throw bad() }
            return .text(text)
        case .sound:
            guard text.unicodeScalars.count <= 100,
                text.unicodeScalars.allSatisfy({
                    ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value | 0x20 >= 0x61 && $0.value | 0x20 <= 0x7A) || $0 == "-" || $0 == "_"
                        || $0 == "."
                })
            else { throw bad() }
            return .text(text)
        case .syncFolder, .calendarFolder, .ankiCollection:
            try refuseHiding(text)
            guard text.isEmpty || (text.hasPrefix("/") && !TerminalText.containsControl(text) && text.utf8.count <= 1024) else { throw bad() }
            return .text(text)
        case .deviceName:
            try refuseHiding(text)
            guard !TerminalText.containsControl(text), text.unicodeScalars.count <= 64, text.isEmpty || !RequestText.isBlank(text) else {
                throw bad()
            }
            return .text(text)
        case .calendarDays:
            guard (1...2).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let n = Int(text),
                (1...60).contains(n)
            else { throw bad() }
            return .count(n)
        case .schedule:
            guard text == "grid" || text == "usual-time" else { throw bad() }
            return .text(text)
        case .experiment:
            guard text == "on" || text == "off" else { throw bad() }
            return .flag(text == "on")
        case .grace, .snooze:
            guard let ms = parseDuration(text), (60_000...86_400_000).contains(ms) else { throw bad() }
            return .milliseconds(ms)
        case .studyCommand:
            // What it runs must read as what it is: no override reordering the words on screen.
            try refuseHiding(text)
            guard !TerminalText.containsControl(text), text.unicodeScalars.count <= 1000 else { throw bad() }
            let words: [String]
            do { words = try CommandWords.split(text) } catch {
                throw SettingError("invalid study-command \(TerminalText.quoted(text)): \(error.message)")
            }
            // A program name that is empty or only blanks would run nothing: refuse it now.
            if let first = words.first, RequestText.isBlank(first) { throw bad() }
            return .words(words)
        case .zone:
            // Whether the name exists is the shell's to check (the tz database is not the core's).
            // One spelling per zone (no empty, "." or ".." parts); `localtime` and `posixrules` are links
            // to the system's zone under another name: that is `system`.
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            let plain =
                !text.isEmpty && text.unicodeScalars.count <= 200
                && parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
                && !["localtime", "posixrules"].contains(text) && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
            guard plain else { throw bad() }
            return .text(text)
        }
    }

    /// A reminder's text must read as typed: no format character that hides or reorders it.
    func refuseHiding(_ text: String) throws(SettingError) {
        guard let refused = FormatCharacters.firstRefused(in: text) else { return }
        throw SettingError("invalid \(rawValue) \(TerminalText.quoted(text)): it holds \(FormatCharacters.describe(refused)); expected \(accepts)")
    }

    /// `HH:MM` → minutes after midnight.
    static func minute(_ text: Substring) -> Int? {
        let p = text.split(separator: ":", omittingEmptySubsequences: false)
        guard p.count == 2, p[0].count == 2, p[1].count == 2, p.allSatisfy({ $0.allSatisfy(\.isASCII) }),
            let h = Int(p[0]), let m = Int(p[1]), (0...23).contains(h), (0...59).contains(m)
        else { return nil }
        return h * 60 + m
    }

    static func clock(_ minute: Int) -> String { "\(pad(minute / 60, 2)):\(pad(minute % 60, 2))" }

    /// `45m`, `90m`, `2h`, `1h30m` → minutes.
    static func minutes(_ text: String) -> Int? {
        var rest = Substring(text)
        var total = 0
        var sawUnit = false
        for unit in ["h", "m"] {
            guard let i = rest.firstIndex(of: Character(unit)) else { continue }
            let digits = rest[..<i]
            guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(digits) else { return nil }
            total += unit == "h" ? n * 60 : n
            rest = rest[rest.index(after: i)...]
            sawUnit = true
        }
        return sawUnit && rest.isEmpty ? total : nil
    }

    static func days(_ text: String) -> Weekdays? {
        switch text {
        case "daily": return .daily
        case "weekdays": return .weekdays
        case "weekends": return .weekends
        default: break
        }
        var mask: UInt8 = 0
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(ends.count) else { return nil }
            let numbers = ends.compactMap { Weekdays.names.firstIndex(of: String($0)) }
            guard numbers.count == ends.count else { return nil }
            // A range runs forward through the week: fri-mon is fri, sat, sun, mon.
            var day = numbers[0]
            while true {
                mask |= 1 << UInt8(day)
                if day == numbers.last! { break }
                day = (day + 1) % 7
            }
        }
        return Weekdays(mask: mask)
    }

    /// A comma list of runs: `mon-fri`, `sat-sun`, `mon,wed,fri`, `daily` as `mon-sun`.
    static func format(_ days: Weekdays) -> String {
        var parts: [String] = []
        var i = 0
        while i < 7 {
            guard days.contains(isoWeekday: i + 1) else {
                i += 1
                continue
            }
            var j = i
            while j + 1 < 7, days.contains(isoWeekday: j + 2) { j += 1 }
            parts.append(i == j ? Weekdays.names[i] : "\(Weekdays.names[i])-\(Weekdays.names[j])")
            i = j + 1
        }
        return parts.joined(separator: ",")
    }

    public static func formatDuration(_ ms: Int64) -> String {
        if ms % 3_600_000 == 0 { return "\(ms / 3_600_000)h" }
        if ms % 60_000 == 0 { return "\(ms / 60_000)m" }
        return "\(ms / 1000)s"
    }
}
