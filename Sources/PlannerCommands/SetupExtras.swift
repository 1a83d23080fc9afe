import PlannerCore
import PlannerTicker

/// What setup installs that the command line parser makes (completion scripts) or the binary carries
/// (the manual page): passed in by the binary as text, so this library needs no parser.
public struct SetupExtras: Sendable {
    public var bashCompletion: String
    public var zshCompletion: String
    public var fishCompletion: String
    /// man/planner.1.
    public var manual: String

    public init(bashCompletion: String, zshCompletion: String, fishCompletion: String, manual: String) {
        self.bashCompletion = bashCompletion
        self.zshCompletion = zshCompletion
        self.fishCompletion = fishCompletion
        self.manual = manual
    }

    /// Completions for the shells installed (found on `path`, PATH), the manual, the icon and the launcher,
    /// less what the Debian package put in place (`packaged`: those items' paths under ~/.local, not written).
    func items(_ f: SetupFacts, path: String?, packaged: Set<String> = []) -> [SetupItem] {
        all(f, path: path).filter { !packaged.contains($0.path) }
    }

    private func all(_ f: SetupFacts, path: String?) -> [SetupItem] {
        var items = [
            SetupItem(
                kind: .file, path: f.dataHome + "/bash-completion/completions/planner",
                content: bashCompletion, why: "bash completion")
        ]
        if SetupFiles.onPath("zsh", path: path) {
            items.append(
                SetupItem(
                    kind: .file, path: f.dataHome + "/zsh/site-functions/_planner", content: zshCompletion,
                    why: "zsh completion (add this folder to fpath before compinit)"))
        }
        if SetupFiles.onPath("fish", path: path) {
            items.append(
                SetupItem(
                    kind: .file, path: f.configHome + "/fish/completions/planner.fish",
                    content: fishCompletion, why: "fish completion"))
        }
        items.append(
            SetupItem(
                kind: .file, path: f.dataHome + "/man/man1/planner.1", content: manual,
                why: "the manual (man planner)"))
        items.append(
            SetupItem(
                kind: .file, path: f.dataHome + "/" + PlannerIcon.relativePath, content: PlannerIcon.xpm,
                why: "the planner's icon, for its notifications and launcher"))
        items.append(
            SetupItem(
                kind: .file, path: f.dataHome + "/applications/planner-study.desktop",
                content: SetupPlan.desktopEntry(binary: f.binary, database: f.database),
                why: "the launcher Start studying (planner study)"))
        return items
    }
}
