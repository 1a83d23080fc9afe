/// The files devices share through a sync folder, as text: each device appends only to files of its own,
/// `planner-<device id>-<000001>.events`, one line per record, never rewritten (a sync engine then never sees
/// two writers of one file). A record is a `PlanEventText` line with `device=` and `stamp=`, or a device line
/// saying the device's name:
///
///     planner-device 1 id=<32 hex> name=Library%20laptop at=1795396200000
///
/// Everything read from another device is untrusted: `SyncFileText.read` takes what a planner could have
/// written and says why it refused the rest, line by line.
public enum SyncFileText {
    public static let deviceHeader = "planner-device 1"
    static let deviceHeaderBytes = Array((deviceHeader + " ").utf8)
    /// A device line of any version starts so.
    static let deviceWordBytes = Array("planner-device ".utf8)
    /// A device starts a new file past this size (a sync engine copies a changed file whole).
    public static let rotateBytes: Int64 = 1 << 20
    /// Larger files are not read (a device's own never gets near it).
    public static let maximumFileBytes: Int64 = 64 << 20
    /// Events stamped further ahead of this device's clock are refused: a clock that far off (or a forged
    /// stamp) would otherwise win every later change and drag every device's clock with it.
    public static let maximumAheadMilliseconds: Int64 = 86_400_000

    public static func fileName(device: String, sequence: Int64) -> String {
        let digits = String(sequence)
        return "planner-\(device)-\(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits).events"
    }

    /// What a name in the folder is.
    public enum Name: Equatable, Sendable {
        /// A device's file, or a sync engine's conflict copy of one (its content is merged like any other).
        case events(device: String)
        /// The sync engine's own (`.stfolder`, `.stignore`, temporary files): never read.
        case engine
        /// Starts like ours but is not: said once.
        case unknown
        /// Anything else: the user's own files in the same folder.
        case other
    }

    public static func classify(_ name: String) -> Name {
        if name == ".stfolder" || name == ".stignore" || name == ".stversions" || name.hasPrefix(".syncthing.")
            || name.hasPrefix("~syncthing~") || name.hasPrefix(".planner-")
        {
            return .engine
        }
        // The user's own files may share the folder: only `planner-….events` names are ours to read.
        guard name.hasPrefix("planner-"), name.hasSuffix(".events") else { return .other }
        let rest = name.dropFirst("planner-".count)
        guard rest.utf8.count > 40 else { return .unknown }
        let device = String(rest.prefix(32))
        let after = rest.dropFirst(32)
        guard PlanEvent.isDeviceID(device), after.hasPrefix("-") else { return .unknown }
        let digits = after.dropFirst().prefix { $0.isASCII && $0.isNumber }
        let tail = after.dropFirst(1 + digits.count)
        // Syncthing's conflict copy: `<name>.sync-conflict-<date>-<time>-<short id>.events`. The short id in
        // it is never trusted: each line says its device.
        guard digits.count >= 6, tail == ".events" || tail.hasPrefix(".sync-conflict-") else { return .unknown }
        return .events(device: device)
    }

    /// `calendar`: whether the device writes a calendar folder (`calendar=1`/`0`; nil: not said). A planner
    /// before 0.2.0 ignores the field (it reads only the fields it knows).
    public static func deviceLine(id: String, name: String, at: Instant, calendar: Bool? = nil) -> String {
        var fields = [("id", id), ("name", name), ("at", String(at.milliseconds))]
        if let calendar { fields.append(("calendar", calendar ? "1" : "0")) }
        return deviceHeader + " " + PlanEventText.fields(fields) + "\n"
    }

    /// A device's name as it said it at `at`, and whether it then carried a calendar (nil: not said).
    public struct DeviceName: Equatable, Sendable {
        public var id: String
        public var name: String
        public var at: Instant
        public var calendar: Bool? = nil
    }

    /// What one read of a file found.
    public struct Read: Sendable {
        public var events: [PlanEvent] = []
        public var names: [DeviceName] = []
        /// Bytes of whole lines (a last line without its line break is being written: read it next time).
        public var consumed = 0
        /// Why lines were refused, in order.
        public var refused: [String] = []
        /// Lines dated too far ahead of this device's clock: never consumed (the read stops counting
        /// bytes at the first), they are read again from this instant on, when they are no longer ahead.
        public var waiting = 0
        public var waitingUntil: Instant?
        /// Lines a newer planner wrote (`PlanEventText.isFromNewerPlanner`): never consumed either, they are
        /// read again once this planner is upgraded.
        public var newer = 0
    }

    /// Reads whole lines of `bytes`, a file of `device`, at `now`. A line from another device than the
    /// file's, a settings change of this device's own settings, a stamp far ahead of `now`: refused.
    public static func read(_ bytes: ArraySlice<UInt8>, device: String, now: Instant) -> Read {
        var result = Read()
        var start = bytes.startIndex
        var firstWaiting: Int?
        while let end = bytes.index(ofNewlineFrom: start) {
            let line = bytes[start...end]
            if let why = readLine(line, device: device, now: now, into: &result) {
                switch why {
                case .waiting(let until):
                    result.waiting += 1
                    result.waitingUntil = min(result.waitingUntil ?? until, until)
                    if firstWaiting == nil { firstWaiting = start }
                case .newer:
                    result.newer += 1
                    if firstWaiting == nil { firstWaiting = start }
                case .refused(let text):
                    result.refused.append(text)
                }
            }
            start = end + 1
        }
        result.consumed = (firstWaiting ?? start) - bytes.startIndex
        return result
    }

    /// Why a line was not taken.
    enum LineProblem {
        case refused(String)
        /// Dated too far ahead of this clock: taken once the clock reaches `until`.
        case waiting(until: Instant)
        /// Written by a newer planner: taken once this one is upgraded.
        case newer
    }

    /// One whole line: nil when taken. A line dated more than `maximumAheadMilliseconds` ahead of `now`
    /// waits (a clock ahead delays a change, it never loses it); anything a planner could not have written
    /// is refused.
    static func readLine(_ bytes: ArraySlice<UInt8>, device: String, now: Instant, into result: inout Read) -> LineProblem? {
        readOneLine(bytes, device: device, now: now, into: &result) { milliseconds in
            milliseconds > now.milliseconds + maximumAheadMilliseconds
                ? .waiting(until: Instant(milliseconds: milliseconds - maximumAheadMilliseconds)) : nil
        }
    }

    private static func readOneLine(
        _ bytes: ArraySlice<UInt8>, device: String, now: Instant, into result: inout Read,
        ahead: (Int64) -> LineProblem?
    ) -> LineProblem? {
        guard bytes.count <= PlanEventText.maximumLineBytes else { return .refused("a line longer than \(PlanEventText.maximumLineBytes) bytes") }
        if bytes.hasBytePrefix(deviceHeaderBytes) {
            guard let line = String(validating: bytes, as: UTF8.self) else { return .refused("a line that is not UTF-8") }
            guard let name = deviceName(line) else { return .refused("a device line that is not one") }
            guard name.id == device else { return .refused("a device line for another device than its file's") }
            if let waiting = ahead(name.at.milliseconds) { return waiting }
            result.names.append(name)
            return nil
        }
        if isNewerDeviceLine(bytes) { return .newer }
        guard var event = PlanEvent(bytes: bytes) else {
            return PlanEventText.isFromNewerPlanner(bytes) ? .newer : .refused("a line that is not a planner event")
        }
        guard let stamp = event.stamp else { return .refused("an event without its device and stamp") }
        if let why = event.problem { return .refused("an event refused: \(why)") }
        guard stamp.device == device || relayer(of: bytes) == device else { return .refused("an event of another device than its file's") }
        // The stamp decides (a planner never publishes one further ahead of its clock than 12 hours); `at`,
        // when it happened, may be a test's `--now` years ahead and must not hold the line back for years.
        if let waiting = ahead(stamp.milliseconds) { return waiting }
        if case .settings(let set, let reset) = event.change {
            // Each device keeps its own: another's folder, name or study program is not this one's.
            let shared = set.filter { $0.key.declaration.scope == .user }
            let sharedReset = reset.filter { $0.declaration.scope == .user }
            guard !shared.isEmpty || !sharedReset.isEmpty else { return .refused("a change of another device's own settings") }
            event.change = .settings(set: shared, reset: sharedReset)
        }
        result.events.append(event)
        return nil
    }

    /// `planner-device N …` with N past this planner's version: a newer planner's device line.
    static func isNewerDeviceLine(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.hasBytePrefix(deviceWordBytes), bytes.last == UInt8(ascii: "\n") else { return false }
        let rest = bytes.dropFirst(deviceWordBytes.count)
        let digits = rest.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard (1...9).contains(digits.count), rest.dropFirst(digits.count).first == UInt8(ascii: " ") else { return false }
        return Int(String(decoding: digits, as: UTF8.self)).map { $0 > 1 } ?? false
    }

    static func deviceName(_ line: String) -> DeviceName? {
        guard line.hasSuffix("\n") else { return nil }
        let bytes = Array(line.utf8)
        guard let pairs = PlanEventText.fields(of: bytes[(deviceHeader.utf8.count + 1)..<(bytes.count - 1)]) else { return nil }
        let fields = Dictionary(uniqueKeysWithValues: pairs)
        guard let id = fields["id"], PlanEvent.isDeviceID(id), let name = fields["name"],
            SettingKey.deviceName.problem(name) == nil, let atText = fields["at"], let at = Int64(atText), at >= 0
        else { return nil }
        let calendar: Bool? =
            switch fields["calendar"] {
            case "1": true
            case "0": false
            default: nil
            }
        return DeviceName(id: id, name: name, at: Instant(milliseconds: at), calendar: calendar)
    }

    /// Another device's event written into this device's file for it (`via=<this device>`), because the file
    /// of the device that made it no longer holds it (that device was restored from a backup): its own line,
    /// so every device applies it as that device's (readers skip an id they have), with the field that says
    /// which file carries it. A reader before 0.2.0 refuses such a line; one of 0.2.0 or later takes it.
    public static func relayedLine(_ event: PlanEvent, via device: String) -> String? {
        guard let line = publishedLine(event) else { return nil }
        return String(line.dropLast()) + " via=" + device + "\n"
    }

    /// The `via=` of an event line (the device whose file relays it), if it has one.
    static func relayer(of bytes: ArraySlice<UInt8>) -> String? {
        let head = PlanEventText.headerBytes.count + 1
        guard bytes.count > head + 1, let fields = PlanEventText.fields(of: bytes[(bytes.startIndex + head)..<(bytes.endIndex - 1)]) else {
            return nil
        }
        return fields.first { $0.0 == "via" }?.1
    }

    /// The line this device publishes for `event` (its own settings left out); nil when nothing in it is shared.
    public static func publishedLine(_ event: PlanEvent) -> String? {
        var event = event
        if case .settings(let set, let reset) = event.change {
            let shared = set.filter { $0.key.declaration.scope == .user }
            let sharedReset = reset.filter { $0.declaration.scope == .user }
            guard !shared.isEmpty || !sharedReset.isEmpty else { return nil }
            event.change = .settings(set: shared, reset: sharedReset)
        }
        return PlanEventText.line(event)
    }
}

extension ArraySlice<UInt8> {
    /// Whether these bytes start with `prefix`, compared through buffer pointers: every line of a first sync
    /// (10,000) is asked this, and the generic `starts(with:)` costs several times as much.
    func hasBytePrefix(_ prefix: [UInt8]) -> Bool {
        guard count >= prefix.count else { return false }
        return withUnsafeBufferPointer { bytes in
            prefix.withUnsafeBufferPointer { wanted in
                for index in 0..<wanted.count where bytes[index] != wanted[index] { return false }
                return true
            }
        }
    }

    /// The index of the first line break at or after `start`, if any (a first sync's file is 1.5 MB).
    func index(ofNewlineFrom start: Int) -> Int? {
        withUnsafeBufferPointer { bytes in
            var offset = start - startIndex
            while offset < bytes.count {
                if bytes[offset] == UInt8(ascii: "\n") { return startIndex + offset }
                offset += 1
            }
            return nil
        }
    }
}
