// swift-tools-version:6.0
import PackageDescription

// Release builds put each function in its own section, so the link can place the functions the common
// commands run next to each other (link/startup-order.txt, made by scripts/startup-order): a run then
// maps a few dense pages of code instead of pages all over the binary (bench/RESULTS.md: peak RSS). They
// also reach a generic type's metadata through its accessor, not by mangled name: the first lookup by name
// of a type such as Set<LocalDate> scans every protocol conformance in the static binary (~3,900; 0.13 M
// instructions each, six in every `open`; bench/budgets.txt).
let functionSections: [SwiftSetting] = [
    .unsafeFlags(
        ["-Xfrontend", "-function-sections", "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
        .when(configuration: .release))
]

let package = Package(
    name: "planner",
    products: [
        .executable(name: "planner", targets: ["planner"])
    ],
    dependencies: [
        // The only package dependency: a well-tested command line parser (help, --version, exit 64).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        // libsqlite3 from the system (Debian: libsqlite3-dev); no Swift wrapper package, so no Foundation/ICU.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // SQLite's small allocations from size classes, for the planner binary (Debian's libsqlite3 has no
        // lookaside: every one went through malloc). Plain C: it hands SQLite function pointers.
        // DWARF 4: valgrind 3.19 (Debian 12; bench/budget_check.sh) cannot read clang's default DWARF 5.
        .target(name: "CSQLiteArena", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        // The calendar folder's quick digest, in C: a name is hashed where readdir left it. DWARF 4 as above.
        .target(name: "CFolderDigest", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        // timerfd, signalfd and inotify headers for the ticker (part of glibc; nothing to link).
        .systemLibrary(name: "CLinux"),
        // Pure rules: slots, identifiers, time arithmetic, what refill/open must change. No I/O.
        .target(name: "PlannerCore", swiftSettings: functionSections),
        // The edges the core must not touch: the tz database, the clock, the environment.
        .target(name: "PlannerSystem", dependencies: ["CLinux", "PlannerCore"], swiftSettings: functionSections),
        // SQLite: connection, migrations (compiled in by the EmbedMigrations plugin), request store.
        .target(
            name: "PlannerStore",
            dependencies: ["CSQLite", "CSQLiteArena", "CLinux", "PlannerCore", "PlannerSystem", "SchemaFingerprint"],
            swiftSettings: functionSections,
            // Every migrations/*.sql compiled in as text (no list to keep: a new migration is a new file),
            // so a copied binary needs no resource bundle.
            plugins: ["EmbedMigrations"]
        ),
        // Every file-side adapter, each the store's source of events (sync folder, calendar folder, Anki's
        // collection, the inbox of saved opens), and the folder child that touches their files: the store
        // holds only the database.
        .target(
            name: "PlannerFolders",
            dependencies: ["CSQLite", "CFolderDigest", "CLinux", "PlannerCore", "PlannerSystem", "PlannerStore"],
            swiftSettings: functionSections
        ),
        // Runs Plugins/EmbedMigrations/embed-migrations.sh with /bin/sh, and planner-schema-data.
        .plugin(name: "EmbedMigrations", capability: .buildTool(), dependencies: ["planner-schema-data"]),
        // The schema fingerprint, written once for the check at every open and the build tool below.
        .target(name: "SchemaFingerprint"),
        // A host tool for the plugin: applies the migrations to in-memory databases and writes what each
        // version's file holds (objects, fingerprint, cookie) as Swift, so it is never stale nor kept by hand.
        .executableTarget(name: "planner-schema-data", dependencies: ["CSQLite", "SchemaFingerprint"]),
        // The ticker's runtime: its poll loop and the OS edges it runs on (timerfd/inotify/signalfd wake-ups,
        // spawned programs, sinks, the session bus, its lock), with the clock, environment and output injected.
        .target(
            name: "PlannerTicker",
            dependencies: ["CLinux", "PlannerCore", "PlannerStore", "PlannerFolders", "PlannerSystem"],
            swiftSettings: functionSections
        ),
        // What each command does, given a context: every subcommand's work (resolving its zone, clock and
        // database, the login's open, study's program, setup's files, status's inbox summary, the ticker's
        // sink) as functions of a `RunContext` (environment, clock, output, current folder, own path,
        // programs it runs) that return values. No ArgumentParser: tests run them in-process.
        .target(
            name: "PlannerCommands",
            dependencies: ["CLinux", "PlannerCore", "PlannerStore", "PlannerFolders", "PlannerSystem", "PlannerTicker"],
            swiftSettings: functionSections
        ),
        // Parsing (ArgumentParser, and the quick paths of the common commands) and printing only.
        .executableTarget(
            name: "planner",
            dependencies: [
                "PlannerCommands",
                "PlannerCore",
                "PlannerStore",
                "PlannerFolders",
                "PlannerSystem",
                "CLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // The manual page (scripts/manual), for `planner setup --install`: the binary stays the only file.
            resources: [.embedInCode("../../man/planner.1")],
            swiftSettings: functionSections,
            linkerSettings: [
                // Release binaries are fully static (Swift runtime, libstdc++, libsqlite3 from Debian's
                // libsqlite3.a, glibc): no dynamic loader relocating libstdc++ and libsqlite3 at every start
                // (bench/RESULTS.md measures the difference), and a binary that runs on any x86-64 Linux.
                // Debug builds (swift test) stay dynamic. lld links it.
                .unsafeFlags(["-static-executable", "-use-ld=lld"], .when(configuration: .release)),
                // The order a run first executes functions in (the Swift runtime and glibc's archives have a
                // section per function too); names no longer in the binary are skipped.
                .unsafeFlags(
                    [
                        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/link/startup-order.txt",
                        "-Xlinker", "--no-warn-symbol-ordering",
                    ], .when(configuration: .release)),
            ]
        ),
        // Fixtures the test targets share: temporary database paths, a fixed clock, plan builders.
        .target(
            name: "PlannerTestSupport", dependencies: ["PlannerCore", "PlannerStore", "PlannerFolders", "PlannerSystem"],
            path: "Tests/PlannerTestSupport"),
        .testTarget(name: "PlannerCoreTests", dependencies: ["PlannerCore", "PlannerSystem", "PlannerTestSupport"]),
        .testTarget(
            name: "PlannerStoreTests",
            dependencies: ["PlannerStore", "PlannerFolders", "PlannerCore", "PlannerSystem", "PlannerTestSupport", "SchemaFingerprint"]),
        .testTarget(
            name: "PlannerFoldersTests",
            dependencies: ["PlannerFolders", "PlannerStore", "PlannerCore", "PlannerSystem", "PlannerTestSupport", "CSQLite"]),
        .testTarget(
            name: "PlannerTickerTests",
            dependencies: ["PlannerTicker", "PlannerStore", "PlannerFolders", "PlannerCore", "PlannerSystem", "PlannerTestSupport"]),
        // The commands in-process: a fake environment and clock, captured output, temporary databases.
        .testTarget(
            name: "PlannerCommandsTests",
            dependencies: [
                "PlannerCommands", "PlannerTicker", "PlannerStore", "PlannerFolders", "PlannerCore", "PlannerSystem", "PlannerTestSupport", "CSQLite",
            ]),
        // Runs `planner` command lines as a user would: the built binary (EndToEndTests) or in-process
        // through the binary's own `Main.run` (PlannerCLITests), with sqlite3 and python3 beside it.
        .target(name: "PlannerHarness", path: "Tests/PlannerHarness"),
        .testTarget(
            name: "PlannerCLITests",
            dependencies: ["planner", "PlannerHarness", "PlannerCommands", "PlannerCore", "PlannerStore", "PlannerFolders", "PlannerSystem"],
            // The pinned interface is read from the source tree by its path (InterfaceTests), not as a resource.
            exclude: ["Interface.txt"]),
        .testTarget(name: "EndToEndTests", dependencies: ["PlannerCore", "PlannerHarness", "PlannerTestSupport"]),
    ]
)
