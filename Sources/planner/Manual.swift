/// The manual page, man/planner.1 (made by scripts/manual from the command definitions), as text.
enum Manual {
    static var page: String { String(decoding: PackageResources.planner_1, as: UTF8.self) }
}
