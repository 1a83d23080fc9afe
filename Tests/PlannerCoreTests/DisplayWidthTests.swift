import Testing

@testable import PlannerCore

/// `DisplayWidth`: the columns a terminal gives text.
@Suite struct DisplayWidthCoreTests {
    @Test(arguments: [
        ("planner", 7), ("공부할 시간?", 12), ("日本語", 6), ("ｶﾀｶﾅ", 4), ("Ａ", 2), ("e\u{301}", 1),
        ("한\u{1161}", 2), ("😀", 2), ("a\u{200D}b", 2), ("", 0), ("Grüße", 5), ("\u{20000}", 2),
    ])
    func columnsOf(text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns)
    }

    @Test func paddingCountsColumnsNotCharacters() {
        #expect(DisplayWidth.padded("한국", to: 6) == "한국  ")
        #expect(DisplayWidth.padded("abc", to: 2) == "abc")
    }

    @Test func theWideRangesAreSortedAndApart() {
        for (a, b) in zip(eastAsianWideRanges, eastAsianWideRanges.dropFirst()) { #expect(a.upperBound + 1 < b.lowerBound) }
    }
}
