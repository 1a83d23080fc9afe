/// The planner's notification icon: a 48x48 clock face as XPM, a text image format that gdk-pixbuf (which
/// dunst and GTK use) reads without extra loaders (an SVG needs librsvg's, which a fresh Debian lacks).
/// Installed as a file by `planner setup` and the package (hicolor/48x48/apps/planner.xpm) and handed to
/// notify-send by its path: servers find a file where they may not find a theme name (dunst 1.9 with its
/// default config finds no `appointment-soon`).
public enum PlannerIcon {
    public static let xpm = """
        /* XPM */
        static char *planner[] = {
        "48 48 4 1",
        "  c None",
        "g c #2E7D32",
        "k c #212121",
        "w c #FFFDE7",
        "                                                ",
        "                                                ",
        "                 gggggggggggggg                 ",
        "               gggggggggggggggggg               ",
        "             gggggggggggggggggggggg             ",
        "           gggggggwwwwwwwwwwwwggggggg           ",
        "          gggggwwwwwwwwggwwwwwwwwggggg          ",
        "         gggggwwwwwwwwwggwwwwwwwwwggggg         ",
        "        ggggwwwgwwwwwwwggwwwwwwwgwwwgggg        ",
        "       ggggwwwgggwwwwwwkkwwwwwwgggwwwgggg       ",
        "      ggggwwwwwggwwwwwwkkwwwwwwggwwwwwgggg      ",
        "     ggggwwwwwwwwwwwwwwkkwwwwwwwwwwwwwwgggg     ",
        "     gggwwwwwwwwwwwwwwwkkwwwwwwwwwwwwwwwggg     ",
        "    ggggwwwwwwwwwwwwwwwkkwwwwwwwwwwwwwwwgggg    ",
        "    gggwwgwwwwwwwwwwwwwkkwwwwwwwwwwwwwgwwggg    ",
        "   gggwwgggwwwwwwwwwwwwkkwwwwwwwwwwwwgggwwggg   ",
        "   gggwwwggwwwwwwwwwwwwkkwwwwwwwwwwwwggwwwggg   ",
        "  ggggwwwwwwwwwwwwwwwwwkkwwwwwwwwwwwwwwwwwgggg  ",
        "  gggwwwwwwwwwwwwwwwwwwkkwwwwwwwwwwwwwwwwwwggg  ",
        "  gggwwwwwwwwwwwwwwwwwwkkwwwwwwwwwwwwwwwwwwggg  ",
        "  gggwwwwwwwwwwwwwwwwwwkkwwwwwwwwwwwwwwwwwwggg  ",
        "  gggwwwwwwwwwwwwwwwwwwkkwwwwwwwwwwwwwwwwwwggg  ",
        "  gggwwwwwwwwwwwwwwwwwwkkwwwwwwwwwwwwwwwwwwggg  ",
        "  gggwgggwwwwwwwwwwwwwwkkkkkkkkkkkkwwwwgggwggg  ",
        "  gggwgggwwwwwwwwwwwwwwwkkkkkkkkkkkwwwwgggwggg  ",
        "  gggwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwggg  ",
        "  gggwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwggg  ",
        "  gggwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwggg  ",
        "  gggwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwggg  ",
        "  gggwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwggg  ",
        "  ggggwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwgggg  ",
        "   gggwwwggwwwwwwwwwwwwwwwwwwwwwwwwwwggwwwggg   ",
        "   gggwwgggwwwwwwwwwwwwwwwwwwwwwwwwwwgggwwggg   ",
        "    gggwwgwwwwwwwwwwwwwwwwwwwwwwwwwwwwgwwggg    ",
        "    ggggwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwgggg    ",
        "     gggwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwggg     ",
        "     ggggwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwgggg     ",
        "      ggggwwwwwggwwwwwwwwwwwwwwggwwwwwgggg      ",
        "       ggggwwwgggwwwwwwwwwwwwwwgggwwwgggg       ",
        "        ggggwwwgwwwwwwwggwwwwwwwgwwwgggg        ",
        "         gggggwwwwwwwwwggwwwwwwwwwggggg         ",
        "          gggggwwwwwwwwggwwwwwwwwggggg          ",
        "           gggggggwwwwwwwwwwwwggggggg           ",
        "             gggggggggggggggggggggg             ",
        "               gggggggggggggggggg               ",
        "                 gggggggggggggg                 ",
        "                                                ",
        "                                                "
        };

        """

    /// Where setup and the package put it, under a data folder (…/share).
    public static let relativePath = "icons/hicolor/48x48/apps/planner.xpm"
}
