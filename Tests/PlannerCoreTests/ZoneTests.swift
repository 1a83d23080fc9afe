import Testing

@testable import PlannerCore

/// A zone with one hand-made DST change, so gaps and overlaps are checked without the tz database.
/// Clocks go from +01:00 to +02:00 at 2026-03-29T01:00Z (02:00 local jumps to 03:00) and back at
/// 2026-10-25T01:00Z (03:00 local falls back to 02:00), like Europe/Berlin.
let berlinLike = Zone(name: "Test/Berlin") { t in
    (t >= 1_774_746_000 && t < 1_792_890_000) ? 7200 : 3600
}

@Suite struct ZoneTests {
    func reading(_ y: Int, _ m: Int, _ d: Int, _ h: Int, _ mi: Int) -> LocalDateTime {
        LocalDateTime(date: LocalDate(year: y, month: m, day: d), hour: h, minute: mi)
    }

    @Test func ordinaryTimeRoundTrips() throws {
        let i = try #require(berlinLike.instant(for: reading(2026, 7, 1, 9, 30)))
        #expect(i == Instant(seconds: 1_782_891_000))  // 2026-07-01T07:30:00Z
        #expect(berlinLike.local(i) == reading(2026, 7, 1, 9, 30))
        #expect(berlinLike.rfc3339(i) == "2026-07-01T09:30:00+02:00")
    }

    @Test func skippedReadingHasNoInstant() {
        #expect(berlinLike.instant(for: reading(2026, 3, 29, 2, 30)) == nil)
        #expect(berlinLike.instant(for: reading(2026, 3, 29, 3, 0)) == Instant(seconds: 1_774_746_000))
    }

    @Test func repeatedReadingTakesTheEarlierInstant() {
        // 02:30 happens at 00:30Z (+02:00) and again at 01:30Z (+01:00).
        #expect(berlinLike.instant(for: reading(2026, 10, 25, 2, 30)) == Instant(seconds: 1_792_888_200))
    }

    @Test func offsetsFormat() {
        #expect(Zone.formatOffset(9 * 3600) == "+09:00")
        #expect(Zone.formatOffset(-4 * 3600) == "-04:00")
        #expect(Zone.formatOffset(12 * 3600 + 45 * 60) == "+12:45")
        #expect(Zone.formatOffset(-(3 * 3600 + 30 * 60)) == "-03:30")
        #expect(Zone.utc.rfc3339(Instant(milliseconds: 1_500)) == "1970-01-01T00:00:01.500+00:00")
    }
}

@Suite struct TimeParsingTests {
    let seoul = Zone.fixed(name: "Test/Seoul", offsetSeconds: 9 * 3600)

    @Test(arguments: [
        ("2026-11-23T09:30", Int64(1_795_393_800_000)),
        ("2026-11-23T09:30:15", 1_795_393_815_000),
        ("2026-11-23T09:30:15.25", 1_795_393_815_250),
        ("2026-11-23T09:30:15.123456789", 1_795_393_815_123),
        ("2026-11-23T00:30Z", 1_795_393_800_000),
        ("2026-11-23T00:30:00Z", 1_795_393_800_000),
        ("2026-11-22T19:30:00-05:00", 1_795_393_800_000),
        ("2026-11-23T01:15:00.5+00:45", 1_795_393_800_500),
    ])
    func accepts(_ text: String, _ ms: Int64) throws {
        #expect(try parseTime(text, in: seoul) == Instant(milliseconds: ms))
    }

    @Test(arguments: [
        "", "now", "2026-11-23", "2026-11-23 09:30", "2026-11-23T9:30", "2026-13-01T09:30", "2026-02-29T09:30",
        "2026-11-23T24:00", "2026-11-23T09:60", "2026-11-23T09:30:60", "2026-11-23T09:30:00.", "2026-11-23T09:30:00.1234567890",
        "2026-11-23T09:30+9:00", "2026-11-23T09:30+09", "2026-11-23T09:30:00+24:00", "2026-11-23T09:30zz", "２０２６-11-23T09:30",
        "2026-11-23T09:30:00Zjunk", "-026-11-23T09:30",
    ])
    func refuses(_ text: String) {
        #expect(throws: PlannerError.self) { try parseTime(text, in: seoul) }
        do { _ = try parseTime(text, in: seoul) } catch { #expect(error.kind == .usage) }
    }

    @Test func skippedLocalTimeIsAnErrorNamingTheZone() {
        do {
            _ = try parseTime("2026-03-29T02:30", in: berlinLike)
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("does not exist in Test/Berlin"))
        }
    }
}

/// Exit codes follow from an error's kind, in one place (`PlannerError.Kind.exitCode`): the README's table.
@Suite struct PlannerErrorKindTests {
    @Test func exitCodesAreTheReadmes() {
        let codes: [(PlannerError.Kind, Int32)] = [
            (.usage, 64), (.data, 65), (.io, 74), (.busy, 75), (.failure, 1),
            (.programNotFound, 127), (.programNotRunnable, 126),
        ]
        for (kind, code) in codes { #expect(PlannerError(kind, "x").exitCode == code, "\(kind)") }
    }
}
