import Foundation
import PlannerHarness
import Testing

/// Tables line up on a terminal with Korean and mixed text (a wide character takes two columns, a
/// combining mark none), and `stats` fits 80 columns. The columns are measured by Python's unicodedata.
@Suite struct DisplayWidthTests {
    /// For each line of the file argv[2]: the display column where argv[1] starts (-1: absent), and the width of the line without its trailing blanks.
    static let columns = """
        import sys, json, unicodedata
        def width(s):
            w = 0
            for c in s:
                if unicodedata.category(c) in ("Mn", "Me", "Cf"):
                    continue
                w += 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1
            return w
        needle = sys.argv[1]
        out = []
        for line in open(sys.argv[2], encoding="utf-8").read().split("\\n"):
            out.append([width(line[:line.index(needle)]) if needle in line else -1, width(line.rstrip(" "))])
        print(json.dumps(out))
        """

    func measure(_ h: Harness, _ text: String, _ needle: String) throws -> [(at: Int, width: Int)] {
        let file = h.dir + "/table.txt"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let out = try h.python(Self.columns, [needle, file])
        let rows = try #require(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[Int]])
        return rows.map { ($0[0], $0[1]) }
    }

    static let koreanTitle = "오늘의 공부를 시작할 시간입니다: 지금 바로 시작하세요, 여러분 화이팅!"

    @Test func theConfigTableAlignsKoreanText() throws {
        let h = try Harness()
        try h.configOK(["set", "title", Self.koreanTitle], now: "2026-11-23T09:00")
        let out = try h.plannerOK(["config"], now: "2026-11-23T09:00")
        let rows = try measure(h, out, "(default)")
        let titleRow = try #require(out.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("title ") })
        let marks = rows.map(\.at).filter { $0 >= 0 }
        #expect(marks.count >= 10)
        #expect(Set(marks).count == 1, "\(out)")
        // The (default) column starts two columns after the widest value: the Korean title.
        #expect(marks.first == rows[titleRow].width + 2, "\(out)")
    }

    @Test func theListAndHistoryTablesAlignMixedText() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00")
        // Hangul, Latin, a combining acute accent and a fullwidth letter in one identifier.
        let id = "공부_알림_re\u{301}sume\u{301}_Ａ"
        _ = try h.plannerOK(["add", "--id", id, "--at", "2026-11-23T09:10", "--title", Self.koreanTitle], now: "2026-11-23T09:00")
        let list = try h.plannerOK(["list"], now: "2026-11-23T09:00")
        let lines = list.split(separator: "\n").map(String.init)
        let header = try measure(h, list, "FIRE AT")[0].at
        let dates = try measure(h, list, "Mon 2026-11-23").map(\.at).filter { $0 >= 0 }
        #expect(dates.count >= 10 && dates.allSatisfy { $0 == header }, "\(list)")
        #expect(lines.contains { $0.hasPrefix(id + "  ") })

        _ = try h.plannerOK(["tick", "--once", "--sink", "stdout"], now: "2026-11-23T09:10", stderrAllowed: true)
        let history = try h.plannerOK(["history"], now: "2026-11-23T09:11")
        let at = try measure(h, history, "Mon 2026-11-23").map(\.at).filter { $0 >= 0 }
        let atHeader = try measure(h, history, "  AT (")[0].at + 2
        #expect(!at.isEmpty && Set(at).count == 1 && at.first == atHeader, "\(history)")
    }

    @Test func statsFitsEightyColumns() throws {
        let h = try Harness()
        _ = try h.plannerOK(["refill"], now: "2026-11-23T09:00")
        _ = try h.plannerOK(["open"], now: "2026-11-23T09:40")
        let out = try h.plannerOK(["stats"], now: "2026-11-25T12:00", extraEnv: ["COLUMNS": "80"])
        let widths = try measure(h, out, "\u{0}").map(\.width)
        #expect(widths.allSatisfy { $0 <= 80 }, "\(out)")
        // The whole legend is still there.
        for words in [
            "opened before any reminder", "after 1-2 reminders", "after 3 or more", "not opened", "not a study day", "today, not opened yet",
        ] {
            #expect(out.contains(words))
        }
    }
}
