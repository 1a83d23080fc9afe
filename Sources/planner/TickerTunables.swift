import Glibc

/// The live ticker lives for days, and glibc's per-thread cache of freed chunks (tcache) holds on to pages
/// of its heap that `malloc_trim` could otherwise give back: with a sync and a calendar folder watched, an
/// idle ticker kept 604 KiB private and dirty, 480 without the cache (bench/TICK_MEMORY.md). The cache can
/// only be turned off as the process starts (a glibc tunable), so a live ticker starts itself once more
/// with it off — the same process, before it has opened anything — and then puts the environment back as
/// it was, so the programs it runs (notify-send, an --exec sink, vdirsyncer) inherit the user's own.
enum TickerTunables {
    static let tunable = "glibc.malloc.tcache_count=0"
    /// Set across the second start: that it happened, and the user's own GLIBC_TUNABLES, if any.
    static let startedMarker = "PLANNER_TICKER_RESTARTED"
    static let savedTunables = "PLANNER_TICKER_TUNABLES"

    /// Call first thing. Returns only when this process is to go on (a restart replaces it).
    static func restartLiveTickerWithoutTCache(_ arguments: [String]) {
        if getenv(startedMarker) != nil {
            // The second start: the tunable has been read; the environment goes back as the user had it.
            if let saved = getenv(savedTunables) { setenv("GLIBC_TUNABLES", saved, 1) } else { unsetenv("GLIBC_TUNABLES") }
            unsetenv(savedTunables)
            unsetenv(startedMarker)
            return
        }
        guard arguments.count > 1, arguments[1] == "tick", !arguments.contains("--once") else { return }
        let own = getenv("GLIBC_TUNABLES").map { String(cString: $0) }
        if let own { setenv(savedTunables, own, 1) }
        setenv("GLIBC_TUNABLES", own.map { $0.isEmpty ? tunable : $0 + ":" + tunable } ?? tunable, 1)
        setenv(startedMarker, "1", 1)
        let argv = arguments.map { strdup($0) } + [nil]
        // By the binary's own path, not /proc/self/exe: the process's name (`comm`) is taken from it, and
        // `setup --uninstall` and ps know the ticker by that name.
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &path, Int(PATH_MAX))
        if n > 0 { execv(String(decoding: path[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self), argv) }
        // Not restarted (no /proc, say): go on as it is, with the environment as it was.
        for pointer in argv { free(pointer) }
        if let own { setenv("GLIBC_TUNABLES", own, 1) } else { unsetenv("GLIBC_TUNABLES") }
        unsetenv(savedTunables)
        unsetenv(startedMarker)
    }
}
