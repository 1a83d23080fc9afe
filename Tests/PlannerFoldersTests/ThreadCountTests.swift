import PlannerSystem
import Testing

@testable import PlannerFolders

/// `FolderChild` forks only in a single-threaded process: the "Threads:" line read as bytes.
@Suite struct ThreadCountTests {
    @Test func readsTheThreadsLine() {
        func count(_ text: String) -> Int? { FolderChild.threadCount(in: Array(text.utf8)[...]) }
        #expect(count("Name:\tplanner\nState:\tR\nThreads:\t1\nSigQ:\t0/1\n") == 1)
        #expect(count("Name:\tplanner\nThreads:\t12\n") == 12)
        #expect(count("Name:\tplanner\nThreads:\t3") == 3)
        #expect(count("Name:\tThreads:\t1\n") == nil)  // not at a line's start
        #expect(count("Name:\tplanner\nThreads:\tx\n") == nil)
        #expect(count("Name:\tplanner\nThreads:\t1x\n") == nil)
        #expect(count("Name:\tplanner\n") == nil)
        #expect(count("") == nil)
    }

    @Test func readsThisProcess() throws {
        let text = try #require(ProcFile.read("/proc/self/status"))
        #expect((FolderChild.threadCount(in: Array(text.utf8)[...]) ?? 0) >= 1)
    }
}
