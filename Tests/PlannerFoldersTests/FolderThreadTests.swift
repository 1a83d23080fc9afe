import Glibc
import Testing

@testable import PlannerFolders

/// In a process of several threads (this one) a folder child is a thread talking over a socket pair in the
/// same frames as a forked child: what the in-process tests run is the production path but for the fork.
@Suite struct FolderThreadTests {
    /// Larger than a socket's buffer both ways, so the frames are read while they are written.
    @Test func bytesLargerThanTheSocketsBufferCrossBothWays() throws {
        let observed = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let job = (0..<2_500_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        var released = 0
        let outcome = try FolderChild.run(
            timing: FolderTiming(),
            observe: { observed },
            decide: { seen in
                #expect(seen == observed)
                return job
            },
            act: { got in got.reversed() },
            release: { released += 1 })
        guard case .done(let seen, let acted?) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(seen == observed)
        #expect(acted == job.reversed())
        #expect(released == 1)
    }

    /// The job runs on the serving thread, not the caller's: the steps cross the socket, not a call.
    @Test func theJobRunsOnAThreadOfItsOwnAndEndsWithTheHangUp() throws {
        let caller = pthread_self()
        var ranOnCaller: Bool?
        let held = FolderChild.hold(
            timing: FolderTiming(), observe: { [1, 2, 3] },
            act: { job in
                ranOnCaller = pthread_equal(pthread_self(), caller) != 0
                return job + [4]
            })
        guard case .done(let seen, _) = held.finish([9]) else {
            Issue.record("no answer")
            held.hangUp()
            return
        }
        #expect(seen == [1, 2, 3])
        held.hangUp()
        #expect(ranOnCaller == false)
        // Without a job, the hang-up alone ends the thread (joined: it returns).
        let idle = FolderChild.hold(timing: FolderTiming(), observe: { [] }, act: { $0 })
        idle.hangUp()
    }

    /// A job handed after the hang-up is refused as such, not taken for a folder that stalled: the run's
    /// waits stay as they were.
    @Test func aJobAfterTheHangUpIsRefusedWithoutAStall() {
        let timing = FolderTiming()
        let held = FolderChild.hold(timing: timing, observe: { [1] }, act: { $0 })
        held.hangUp()
        guard case .failed(let why) = held.finish([2]) else {
            Issue.record("a job after the hang-up was not refused")
            return
        }
        #expect(why == "the folder child was already let go")
        #expect(timing.limit == FolderTiming.standardMilliseconds)
    }
}
