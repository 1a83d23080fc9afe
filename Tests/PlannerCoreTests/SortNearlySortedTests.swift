import PlannerTestSupport
import Testing

@testable import PlannerCore

/// `decideRefill` sorts with its own insertion sort (it allocates nothing); the standard library's stable
/// sort is the oracle: random lengths across the 256 cut-over, few distinct keys (many ties, so stability
/// shows), already sorted runs one after the other (the common case), and shuffled input.
@Suite struct SortNearlySortedTests {
    @Test func sortsLikeTheStandardLibrarysStableSort() {
        var random = SeededGenerator(seed: 2_311)
        for round in 0..<600 {
            let count = Int(random.next() % 300)
            let keys = Int(random.next() % 40) + 1
            var items: [(key: Int, order: Int)] = (0..<count).map { (key: Int(random.next() % UInt64(keys)), order: $0) }
            if round % 3 == 0 {
                // Two runs, each sorted: what `decideRefill` merges.
                let cut = count == 0 ? 0 : Int(random.next() % UInt64(count))
                items = items[..<cut].sorted { $0.key < $1.key } + items[cut...].sorted { $0.key < $1.key }
            }
            var mine = items
            sortNearlySorted(&mine) { $0.key < $1.key }
            let oracle = items.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element)
            #expect(mine.map(\.key) == oracle.map(\.key), "round \(round)")
            #expect(mine.map(\.order) == oracle.map(\.order), "round \(round): not stable")
        }
    }
}
