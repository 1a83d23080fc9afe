import Glibc
import PlannerTestSupport
import Testing

@testable import PlannerFolders
@testable import PlannerStore

/// The sync folder's child says what it did to this device's own file as bytes; the parent reads them back.
/// Each answer is written and read by the same `OwnFile` types, so a new case cannot be said one way and
/// read another.
struct OwnFileWireTests {
    @Test func everyOpenedAnswerReadsBackAsItWasSaid() {
        let answers: [OwnFile.Opened] =
            [.opened(size: 0), .opened(size: 1 << 40), .folderMissing(ENOENT), .failed(EIO), .busy]
            + [OwnFile.Refusal.fifo, .link, .unopenable, .folder, .notRegular, .otherUser, .hardLinks].map { .refused($0, number: 7) }
        for answer in answers {
            #expect("\(OwnFile.Opened(answer.bytes))" == "\(answer)")
        }
        #expect("\(OwnFile.Opened([]))" == "unreadable")
        #expect("\(OwnFile.Opened(Array(OwnFile.Opened.refused(.link, number: 0).bytes.dropLast())))" == "unreadable")
    }

    @Test func everyAppendedAnswerReadsBackAsItWasSaid() {
        for answer: OwnFile.Appended in [.appended(size: 12, mtime: 1_765_000_000_123_456_789), .failed(ENOSPC)] {
            #expect("\(OwnFile.Appended(answer.bytes))" == "\(answer)")
        }
    }

    /// A FIFO, a link, a folder and another name of the file are refused without blocking or following;
    /// a plain file is opened, locked and appended to, durably.
    @Test func theOwnFileStepsRefuseWhatIsNotThisDevicesOwn() throws {
        let folder = String(temporaryDatabasePath().dropLast("/planner.db".count))
        mkfifo(folder + "/fifo", 0o600)
        symlink("/etc/passwd", folder + "/link")
        mkdir(folder + "/dir", 0o700)
        close(creat(folder + "/linked", 0o600))
        link(folder + "/linked", folder + "/other-name")
        func opened(_ name: String) -> OwnFile.Opened {
            var dir: Int32 = -1
            var fd: Int32 = -1
            defer {
                if fd >= 0 { close(fd) }
                if dir >= 0 { close(dir) }
            }
            return OwnFile.open(folder: folder, name: name, lockWait: 290, dir: &dir, fd: &fd)
        }
        func refusal(_ name: String) -> String? {
            guard case .refused(let why, let number) = opened(name) else { return nil }
            return "\(why) \(number)"
        }
        #expect(refusal("fifo") == "fifo 0")
        #expect(refusal("link") == "link 0")
        #expect(refusal("dir") == "folder 0")
        #expect(refusal("linked") == "hardLinks 2")
        if case .failed = opened("missing/x") {} else { Issue.record("a name in a missing folder: \(opened("missing/x"))") }
        var dir: Int32 = -1
        var fd: Int32 = -1
        #expect("\(OwnFile.open(folder: folder + "/none", name: "x", lockWait: 290, dir: &dir, fd: &fd))" == "folderMissing(\(ENOENT))")
        #expect("\(OwnFile.open(folder: folder, name: "own", lockWait: 290, dir: &dir, fd: &fd))" == "opened(size: 0)")
        defer {
            close(fd)
            close(dir)
        }
        guard case .appended(let size, _) = OwnFile.append(Array("line\n".utf8), fd: fd, dir: dir) else {
            Issue.record("the append failed")
            return
        }
        #expect(size == 5)
    }
}
