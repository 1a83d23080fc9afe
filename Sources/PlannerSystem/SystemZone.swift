import Glibc
import PlannerCore

/// Zones from the system's tz database, through the C library (`localtime_r`), without ICU.
///
/// glibc keeps one active zone per process (the `TZ` variable), so lookups switch it under a lock;
/// in the binary only one zone is ever used and the switch happens once.
public enum SystemZone {
    /// The planner's zone: `TZ` when set and non-empty, else the system zone (/etc/localtime).
    public static func current(environment tz: String?) throws(PlannerError) -> Zone {
        if let tz, !tz.isEmpty { return try named(tz) }
        return systemDefault()
    }

    /// A zone from the tz database by name (`Europe/Berlin`, `UTC`); a leading ':' is allowed as in TZ.
    /// glibc would silently use UTC for an unknown name, so the name is checked against the files first.
    public static func named(_ rawName: String) throws(PlannerError) -> Zone {
        let name = rawName.hasPrefix(":") ? String(rawName.dropFirst()) : rawName
        let isPlainName =
            !name.isEmpty && !name.hasPrefix("/") && !name.split(separator: "/").contains("..")
            && name.utf8.allSatisfy { isZoneNameByte($0) }
        let path = name.hasPrefix("/") ? name : zoneDirectory() + "/" + name
        // "right/" zones count leap seconds, which Unix time (and so the planner) does not.
        let file = isPlainName || name.hasPrefix("/") ? tzifFile(path) : .notOne
        if case .unreadable(let code) = file {
            // Out of file descriptors or memory: the zone may well exist; saying it does not would make the
            // plan run in another zone.
            let limit = code == EMFILE || code == ENFILE ? " (or with more open files allowed: ulimit -n)" : ""
            throw .io("cannot read the time zone file \(path) (\(String(cString: strerror(code)))): nothing was changed; try again\(limit)")
        }
        guard file == .zone, !name.hasPrefix("right/") else {
            throw .usage(
                "unknown time zone \(TerminalText.quoted(rawName)) in TZ: use a tz database name such as Europe/Berlin or America/New_York (see /usr/share/zoneinfo), or unset TZ for the system zone"
            )
        }
        return make(name: name, tzValue: ":" + path)
    }

    /// Whether /etc/localtime is a zone file (without it the system zone is UTC).
    public static var hasLocaltimeFile: Bool { isTZifFile("/etc/localtime") }

    /// The system zone. Named after the /etc/localtime link when there is one; UTC when there is no file.
    public static func systemDefault() -> Zone {
        let link = "/etc/localtime"
        guard isTZifFile(link) else { return Zone.utc }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(link, &buffer, buffer.count - 1)
        var name = "localtime"
        if n > 0 {
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let range = target.firstRange(of: "zoneinfo/") { name = String(target[range.upperBound...]) }
        }
        return make(name: name, tzValue: ":" + link)
    }

    private static func make(name: String, tzValue: String) -> Zone {
        let days = DayOffsets()
        return Zone(
            name: name,
            offsetSeconds: { seconds in
                pthread_mutex_lock(&lock)
                defer { pthread_mutex_unlock(&lock) }
                return days.offset(at: seconds) { offset(tzValue: tzValue, at: $0) }
            },
            // One `localtime_r`, not the two that remembering its day takes: the calendar's VTIMEZONE scans
            // three years a fortnight apart, each reading once.
            probe: { seconds in
                pthread_mutex_lock(&lock)
                defer { pthread_mutex_unlock(&lock) }
                return offset(tzValue: tzValue, at: seconds)
            })
    }

    /// glibc re-parses the zone's POSIX rule on every `localtime_r` for instants after the file's last
    /// transition (most zones, most of the time): a plan asks for hundreds of offsets per run. A UTC day
    /// whose two ends have the same offset has it throughout (real zones change at most once in a couple
    /// of days, as `Zone.instant(for:)` assumes too); a day with a change is asked of glibc each time.
    ///
    /// Kept in a direct-mapped table (a day's slot is its number modulo 512; a day that meets another's slot
    /// is asked again): no Dictionary, whose first use in a process costs run-time type lookups dearer than
    /// every lookup here, and a lookup of a few instructions.
    private final class DayOffsets: @unchecked Sendable {
        private static let slots = 512
        private var days = [Int64](repeating: .min, count: slots)
        private var offsets = [Int](repeating: 0, count: slots)

        func offset(at seconds: Int64, _ lookup: (Int64) -> Int) -> Int {
            let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let slot = Int(truncatingIfNeeded: day) & (Self.slots - 1)
            if days[slot] == day { return offsets[slot] }
            let start = day &* 86_400
            let first = lookup(start)
            let last = lookup(start &+ 86_399)
            guard first == last else { return lookup(seconds) }
            days[slot] = day
            offsets[slot] = first
            return first
        }
    }

    /// The files a zone setting reads (`system`: /etc/localtime), and /etc/localtime in any case (a zone
    /// setting this system does not have is read as the system zone), with where /etc/localtime points (its
    /// name is the zone's: an alias is the same file under another name). Their identities (device, inode,
    /// size, times: a tz database update replaces them) say that what was made from the zone still holds.
    public static func files(setting name: String) -> (paths: [String], link: String) {
        let bare = name.hasPrefix(":") ? String(name.dropFirst()) : name
        let path = bare == "system" ? "/etc/localtime" : bare.hasPrefix("/") ? bare : zoneDirectory() + "/" + bare
        var target = [CChar](repeating: 0, count: 4096)
        let n = readlink("/etc/localtime", &target, target.count - 1)
        let link = n > 0 ? String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "-"
        return ([path, "/etc/localtime"], link)
    }

    private static func zoneDirectory() -> String {
        if let dir = getenv("TZDIR"), dir.pointee != 0 { return String(cString: dir) }
        return "/usr/share/zoneinfo"
    }

    private static func isZoneNameByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            || b == UInt8(ascii: "/") || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
    }

    /// A regular file that starts with the TZif magic.
    private static func isTZifFile(_ path: String) -> Bool { tzifFile(path) == .zone }

    enum TZifFile: Equatable {
        case zone, notOne
        /// It could not be looked at for a reason that says nothing of the file (no descriptor, no memory).
        case unreadable(Int32)
    }

    private static func tzifFile(_ path: String) -> TZifFile {
        func failed() -> TZifFile {
            let code = errno
            return [EMFILE, ENFILE, ENOMEM, EIO, EAGAIN, EINTR].contains(code) ? .unreadable(code) : .notOne
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return failed() }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .notOne }
        guard let file = fopen(path, "rb") else { return failed() }
        defer { fclose(file) }
        var magic = [UInt8](repeating: 0, count: 4)
        return fread(&magic, 1, 4, file) == 4 && magic == Array("TZif".utf8) ? .zone : .notOne
    }

    // Guards the process-wide TZ variable and glibc's zone state.
    nonisolated(unsafe) private static var lock: pthread_mutex_t = {
        var m = pthread_mutex_t()
        pthread_mutex_init(&m, nil)
        return m
    }()
    nonisolated(unsafe) private static var activeTZ: String?

    /// Called with `lock` held.
    private static func offset(tzValue: String, at seconds: Int64) -> Int {
        if activeTZ != tzValue {
            setenv("TZ", tzValue, 1)
            tzset()
            activeTZ = tzValue
        }
        var t = time_t(seconds)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }
}
