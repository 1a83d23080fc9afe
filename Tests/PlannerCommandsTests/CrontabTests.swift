import Glibc
import PlannerCore
import Testing

@testable import PlannerCommands

/// Why `setup` could not change the crontab: "install cron" only when there is no crontab program; any other
/// reason to not start it (not executable, a busy text file, no memory) is named as such.
@Suite struct CrontabTests {
    func message(settingWith runner: ProgramRunner) -> String {
        do {
            try Crontab(run: runner).set("* * * * * true\n")
            return ""
        } catch {
            return error.message
        }
    }

    @Test func aMissingCrontabSaysWhatToInstall() {
        let said = message(settingWith: ProgramRunner(start: { _, _, _ in .failure(.init(errno: ENOENT)) }))
        #expect(said.contains("no crontab program on PATH (apt-get install cron)"), "\(said)")
    }

    @Test func aCrontabThatCannotStartSaysWhy() {
        for (code, why) in [(EACCES, "Permission denied"), (ETXTBSY, "Text file busy")] {
            let said = message(settingWith: ProgramRunner(start: { _, _, _ in .failure(.init(errno: code)) }))
            #expect(said.contains(why) && !said.contains("apt-get"), "\(said)")
        }
    }

    /// The real spawner says which: a program that is not there, and one that is there but not executable.
    @Test func theSpawnerReportsWhyAProgramDidNotStart() throws {
        let missing = ProgramRunner.spawning.start(["/nonexistent-folder/crontab"], nil, .discarded)
        #expect(throws: ProgramRunner.StartFailure(errno: ENOENT)) { try missing.get() }
        let path = "/tmp/planner-crontab-test-\(getpid())"
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        try #require(fd >= 0)
        close(fd)
        defer { unlink(path) }
        let notExecutable = ProgramRunner.spawning.start([path], nil, .discarded)
        #expect(throws: ProgramRunner.StartFailure(errno: EACCES)) { try notExecutable.get() }
        let ran = ProgramRunner.spawning.start(["/bin/sh", "-c", "echo hi; exit 3"], nil, .discarded)
        let result = try ran.get()
        #expect(result.status == 3 && result.output == "hi\n")
    }
}
