/// The planner's notification icon: a clock face. Installed as a file by `planner setup` and the package
/// (hicolor/scalable/apps/planner.svg) and handed to notify-send by its path: servers find a file where
/// they may not find a theme name (dunst 1.9 with its default config finds no `appointment-soon`).
enum PlannerIcon {
    static let svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48">
          <circle cx="24" cy="24" r="21.5" fill="#fffde7" stroke="#2e7d32" stroke-width="3"/>
          <g stroke="#2e7d32" stroke-width="2.4" stroke-linecap="round">
            <path d="M24 7.5v3M24 37.5v3M7.5 24h3M37.5 24h3"/>
          </g>
          <path d="M24 24V11M24 24h10" stroke="#212121" stroke-width="2.6" stroke-linecap="round" fill="none"/>
          <circle cx="24" cy="24" r="2" fill="#212121"/>
        </svg>

        """

    /// Where setup and the package put it, under a data folder (…/share).
    static let relativePath = "icons/hicolor/scalable/apps/planner.svg"
}
