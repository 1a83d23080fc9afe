import PlannerFolders
import PlannerSystem
import PlannerTestSupport
import Testing

/// What crosses between the planner and its folder child (`Wire`): any sequence of integers, byte strings and
/// texts reads back as written, whatever the texts hold; a message cut anywhere reads as nothing, never as
/// something else. Texts are read in place (issue 31): this is the oracle that reading did not change.
@Suite struct WireTests {
    enum Field: Equatable {
        case int(Int64)
        case data([UInt8])
        case text(String)
    }

    static func randomText(_ g: inout SeededGenerator) -> String {
        let pieces = ["", "a", "planner-Noti_AppOpenPromotion_2026_11_23_09_30.ics", "공부", "\u{0}", "\n", "é", "🙂", "\u{FEFF}", "x y"]
        return (0..<g.below(6)).map { _ in g.pick(pieces) }.joined()
    }

    @Test(arguments: 1...40 as ClosedRange<UInt64>) func whatIsWrittenReadsBack(seed: UInt64) {
        var g = SeededGenerator(seed: seed)
        var fields: [Field] = []
        var w = Wire.Writer()
        for _ in 0..<g.below(30) {
            switch g.below(3) {
            case 0:
                let v = Int64(bitPattern: g.next())
                fields.append(.int(v))
                w.int(v)
            case 1:
                let v = (0..<g.below(40)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
                fields.append(.data(v))
                w.data(v)
            default:
                let v = Self.randomText(&g)
                fields.append(.text(v))
                w.text(v)
            }
        }
        var r = Wire.Reader(w.bytes)
        for field in fields {
            switch field {
            case .int(let v): #expect(r.int() == v)
            case .data(let v): #expect(r.data() == v)
            case .text(let v): #expect(r.text() == v)
            }
        }
        #expect(r.atEnd)
        // A text is its UTF-8 bytes behind their count: the same bytes as data.
        if case .text(let v)? = fields.first {
            var again = Wire.Reader(w.bytes)
            #expect(again.data() == Array(v.utf8))
        }
    }

    @Test func aCutMessageReadsAsNothing() {
        var w = Wire.Writer()
        w.text("planner-day-2026-11-23.ics")
        for end in 0..<w.bytes.count {
            var r = Wire.Reader(Array(w.bytes[..<end]))
            #expect(r.text() == nil, "cut at \(end)")
        }
        var negative = Wire.Writer()
        negative.int(-1)
        var r = Wire.Reader(negative.bytes + [65])
        #expect(r.text() == nil)
    }

    @Test func bytesThatAreNotUTF8ReadAsReplacementCharacters() {
        var w = Wire.Writer()
        w.data([0x61, 0xFF, 0x62])
        var r = Wire.Reader(w.bytes)
        #expect(r.text() == "a\u{FFFD}b")
    }
}
