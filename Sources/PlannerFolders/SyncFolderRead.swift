import Glibc
import PlannerCore
import PlannerStore
import PlannerSystem

/// The sync folder's (and the calendar folder's) read side as the folder child (`FolderChild`) does it: the system calls only (no
/// database, no output). The child lists the folder and opens each file of a device (never following a
/// link, never blocking on a FIFO; refusing what is not a regular file of this user of a sane size); the
/// planner decides what to read from its rows; the child reads those ranges.
enum PeerFiles {
    enum State {
        case opened(size: Int64, mtime: Int64, links: Int64)
        case refused(String)
        /// Listed, then gone when opened.
        case gone
    }

    struct Listing {
        var files: [(name: String, state: State)] = []
        /// The size of this device's own current file (nil: not there).
        var ownSize: Int64?
        /// The folder could not be opened (errno).
        var folderError: Int32?

        init?(_ bytes: [UInt8]) {
            var r = Wire.Reader(bytes)
            guard let status = r.int() else { return nil }
            if status == 1 {
                folderError = r.int().map { Int32($0) } ?? EIO
                return
            }
            guard let own = r.int() else { return nil }
            ownSize = own < 0 ? nil : own
            while !r.atEnd {
                guard let name = r.text(), let kind = r.int() else { return nil }
                switch kind {
                case 0:
                    guard let size = r.int(), let mtime = r.int(), let links = r.int() else { return nil }
                    files.append((name, .opened(size: size, mtime: mtime, links: links)))
                case 1:
                    guard let why = r.text() else { return nil }
                    files.append((name, .refused(why)))
                case 2: files.append((name, .gone))
                default: files.append((name, .refused("cannot be read")))
                }
            }
        }
    }

    /// In the child: every name (sorted), each device file opened and kept open for `read`.
    static func list(
        _ folder: String, own: String?, wanted: (String) -> Bool = PeerFiles.isDeviceFile,
        maximumBytes: Int64 = SyncFileText.maximumFileBytes, fds: inout [String: Int32]
    ) -> [UInt8] {
        var out = Wire.Writer()
        let dir = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else {
            out.int(1)
            out.int(Int64(errno))
            return out.bytes
        }
        defer { close(dir) }
        out.int(0)
        var info = stat()
        out.int(own.map { fstatat(dir, $0, &info, AT_SYMLINK_NOFOLLOW) == 0 ? Int64(info.st_size) : -1 } ?? -1)
        for name in PlannerDatabase.folderNames(dir) {
            FolderChild.progress()
            out.text(name)
            guard wanted(name) else {
                out.int(3)
                continue
            }
            switch PlannerDatabase.openFile(dir, name, maximumBytes: maximumBytes) {
            case .gone: out.int(2)
            case .refused(let why):
                out.int(1)
                out.text(why)
            case .opened(let fd, let size, let mtime):
                fds[name] = fd
                var info = stat()
                let links = fstat(fd, &info) == 0 ? Int64(info.st_nlink) : 1
                out.int(0)
                out.int(size)
                out.int(mtime)
                out.int(links)
            }
        }
        return out.bytes
    }

    static func isDeviceFile(_ name: String) -> Bool {
        if case .events = SyncFileText.classify(name) { return true }
        return false
    }

    /// Each range to read, with the bytes the reader last saw just before its start (`tail`; empty: none).
    static func job(_ ranges: [(name: String, from: Int64, to: Int64, tail: [UInt8])]) -> [UInt8] {
        var w = Wire.Writer()
        for range in ranges {
            w.text(range.name)
            w.int(range.from)
            w.int(range.to)
            w.data(range.tail)
        }
        return w.bytes
    }

    enum Read {
        case bytes([UInt8])
        /// The bytes before the range were not those read last time (the file was put back: a restore, a
        /// rolled-back sync): read from the file's start instead.
        case rewound([UInt8])
        case failed(Int32)
    }

    /// How many bytes before where a read stopped are kept to tell a file appended to from one put back.
    static let tailBytes = 64

    /// In the child: each range read. A range that stops inside a line longer than the whole range reads on
    /// to that line's end (or the file's), or the next pass would start there again. A range whose `tail`
    /// is not what the file holds before it is read from the file's start.
    static func read(_ job: [UInt8], fds: [String: Int32]) -> [UInt8] {
        var r = Wire.Reader(job)
        var out = Wire.Writer()
        while !r.atEnd {
            guard let name = r.text(), var from = r.int(), var to = r.int(), let tail = r.data(), let fd = fds[name] else { break }
            FolderChild.progress()
            var rewound = false
            if !tail.isEmpty, from >= Int64(tail.count),
                PlannerDatabase.readBytes(fd, from: from - Int64(tail.count), to: from).map({ $0 != tail }) ?? false
            {
                // Read whole, past any budget: what the file no longer holds is decided from all it holds.
                rewound = true
                from = 0
                var info = stat()
                if fstat(fd, &info) == 0 { to = max(to, Int64(info.st_size)) }
            }
            guard var bytes = PlannerDatabase.readBytes(fd, from: from, to: to) else {
                out.text(name)
                out.int(1)
                out.int(Int64(errno))
                continue
            }
            if !bytes.contains(10) {
                var info = stat()
                if fstat(fd, &info) == 0, Int64(info.st_size) > to, let rest = PlannerDatabase.readBytes(fd, from: to, to: Int64(info.st_size)) {
                    bytes += rest.firstIndex(of: 10).map { rest[...$0] } ?? rest[...]
                }
            }
            out.text(name)
            out.int(rewound ? 2 : 0)
            out.data(bytes)
        }
        return out.bytes
    }

    static func results(_ bytes: [UInt8]) -> [String: Read]? {
        var r = Wire.Reader(bytes)
        var results: [String: Read] = [:]
        while !r.atEnd {
            guard let name = r.text(), let status = r.int() else { return nil }
            if status == 0 || status == 2 {
                guard let data = r.data() else { return nil }
                results[name] = status == 0 ? .bytes(data) : .rewound(data)
            } else {
                results[name] = .failed(r.int().map { Int32($0) } ?? EIO)
            }
        }
        return results
    }
}
