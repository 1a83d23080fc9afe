import Foundation

/// Runs `planner` as a user would, and python3 / sqlite3 beside it, in a private temp folder: the
/// EndToEndTests run the built binary (a process each time); PlannerCLITests run the same command lines
/// in-process, through the binary's own parse, run and error path (`Main.run`), for what needs no process.
public struct Harness: Sendable {
    public let dir: String
    public var env: [String: String]
    /// How `planner ARGS` runs with an environment, in `dir`.
    public typealias Runner = @Sendable (_ args: [String], _ env: [String: String], _ dir: String) throws -> Result
    private let runner: Runner

    public init(planner runner: @escaping Runner) throws {
        dir = NSTemporaryDirectory() + "planner-e2e-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // A clean environment: nothing from the developer's shell leaks into the test.
        env = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": dir, "TZ": "Asia/Seoul"]
        self.runner = runner
    }

    public var db: String { dir + "/planner.db" }

    /// The planner binary SwiftPM built next to the test bundle.
    /// `PLANNER_TEST_BINARY` runs the suite against another build (e.g. an older commit's, to see that
    /// a new test fails there).
    public static let binary: String = {
        if let other = ProcessInfo.processInfo.environment["PLANNER_TEST_BINARY"], !other.isEmpty { return other }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("planner").path), url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url.appendingPathComponent("planner").path
    }()

    /// The repository's root, from this file's own place (Tests/PlannerHarness/Harness.swift): never by
    /// looking for "/Tests/" in a path, which a checkout's own parent folders may hold too.
    public static let repository: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A file of the repository, read as text.
    public static func repositoryText(_ relative: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(relative), encoding: .utf8)
    }

    public struct Result {
        public var status: Int32
        public var out: String
        public var err: String

        public init(status: Int32, out: String, err: String) {
            self.status = status
            self.out = out
            self.err = err
        }
    }

    /// `planner ARGS` with the harness's environment and `extra`; `binary`: that program instead (another
    /// build, a copy), always as a process.
    @discardableResult
    public func planner(_ args: [String], env extra: [String: String] = [:], binary: String? = nil) throws -> Result {
        let env = env.merging(extra) { $1 }
        if let binary { return try run(binary, args, env: env) }
        return try runner(args, env, dir)
    }

    /// `planner COMMAND --db <db> --now NOW ARGS…`, asserting success and a silent stderr (unless allowed).
    /// The options go right after the subcommand because `tick --exec` takes everything after it.
    public func plannerOK(_ args: [String], now: String, extraEnv: [String: String] = [:], stderrAllowed: Bool = false) throws -> String {
        let r = try planner([args[0], "--db", db, "--now", now] + args.dropFirst(), env: extraEnv)
        guard r.status == 0, r.err.isEmpty || stderrAllowed else {
            throw HarnessError("planner \(args) exited \(r.status): \(r.err)")
        }
        return r.out
    }

    public func sqlite(_ sql: String, db path: String? = nil) throws -> String {
        let r = try run("/usr/bin/env", ["sqlite3", path ?? db, sql], env: env)
        guard r.status == 0 else { throw HarnessError("sqlite3 failed: \(r.err)") }
        return r.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func python(_ script: String, _ args: [String]) throws -> String {
        let r = try run("/usr/bin/env", ["python3", "-c", script] + args, env: env)
        guard r.status == 0 else { throw HarnessError("python3 failed: \(r.err)") }
        return r.out
    }

    public func run(_ path: String, _ args: [String], env: [String: String]) throws -> Result {
        try Harness.run(path, args, env: env, in: dir)
    }

    /// Runs a program to completion with its output captured.
    public static func run(_ path: String, _ args: [String], env: [String: String], in dir: String? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.environment = env
        if let dir { p.currentDirectoryURL = URL(fileURLWithPath: dir) }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // Read both pipes at once before waiting: a child blocked on a full stderr pipe (64 KiB) while
        // this reads stdout to its end would never exit.
        let e = PipeText(err)
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let errData = e.wait()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, out: String(decoding: o, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
    }

    /// Writes a program (a script) a test then runs. Written by a child (`install`), never by this process:
    /// a file this process has open for writing is inherited by any child another test forks at that
    /// moment, and while that child lives exec of the file fails with ETXTBSY (CI saw `setup` find its fake
    /// crontab "cannot be started").
    public static func writeProgram(_ text: String, to path: String) throws {
        let source = path + ".source-\(UUID().uuidString)"
        try text.write(toFile: source, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: source) }
        let r = try run("/usr/bin/install", ["-m", "755", source, path], env: ["PATH": "/usr/bin:/bin"])
        guard r.status == 0 else { throw HarnessError("install \(path) exited \(r.status): \(r.err)") }
    }

    public func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    public func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

/// A pipe read to its end on a thread of its own.
public final class PipeText: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    public init(_ pipe: Pipe) {
        Thread.detachNewThread { [self] in
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
    }

    public func wait() -> Data {
        done.wait()
        return data
    }
}

public struct HarnessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// The pending list as (id, fire_at) pairs, from `planner list --json`.
public func parseList(_ json: String) throws -> [[String: String]] {
    let data = Data(json.utf8)
    return try JSONSerialization.jsonObject(with: data) as? [[String: String]] ?? []
}
