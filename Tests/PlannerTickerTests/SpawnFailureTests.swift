import Glibc
import PlannerSystem
import Testing

/// What the ticker logs when a program cannot be started says which step failed: a pipe (the process out of
/// descriptors) is not the program missing.
@Suite struct SpawnFailureTests {
    @Test func aPipeThatCouldNotBeMadeIsSaidSo() {
        #expect(Subprocess.Failure(errno: EMFILE, inPipe: true).describe("notify-send") == "notify-send: pipe: Too many open files")
        #expect(Subprocess.Failure(errno: ENOENT).describe("notify-send") == "notify-send: No such file or directory")
    }

    @Test func aProgramThatIsNotThereIsNotAPipe() {
        var options = Subprocess.Options()
        options.output = .pipe
        guard case .failure(let failure) = Subprocess.start(["/nonexistent/planner-test-program"], options) else {
            Issue.record("a missing program started")
            return
        }
        #expect(failure.errno == ENOENT && !failure.inPipe)
    }
}
