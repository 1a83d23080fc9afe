import Foundation
import Testing

@testable import PlannerCore

/// Setting values: what each key accepts and the canonical text stored, and how a changed plan retires
/// the pending slots it no longer has.
@Suite struct PlanSettingsTests {
    let seoul = Zone.fixed(name: "Test/Seoul", offsetSeconds: 9 * 3600)
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }

    @Test(arguments: [
        (SettingKey.interval, "45m", "45m"), (.interval, "90m", "1h30m"), (.interval, "1h30m", "1h30m"), (.interval, "2h", "2h"),
        (.interval, "5m", "5m"), (.interval, "12h", "12h"), (.interval, "0h30m", "30m"),
        (.window, "09:30-21:30", "09:30-21:30"), (.window, "00:00-23:59", "00:00-23:59"), (.window, "12:00-12:00", "12:00-12:00"),
        (.days, "weekdays", "mon-fri"), (.days, "daily", "mon-sun"), (.days, "weekends", "sat-sun"),
        (.days, "sun,mon", "mon,sun"), (.days, "fri-mon", "mon,fri-sun"), (.days, "mon,wed,fri", "mon,wed,fri"),
        (.days, "mon-wed,tue-thu", "mon-thu"), (.grace, "90s", "90s"), (.grace, "60m", "1h"), (.urgency, "low", "low"),
    ])
    func acceptedValuesHaveOneCanonicalText(key: SettingKey, text: String, canonical: String) throws {
        #expect(try key.canonical(text) == canonical)
        // The canonical text reads back as itself.
        #expect(try key.canonical(canonical) == canonical)
    }

    @Test(arguments: [
        (SettingKey.window, "21:30-09:3"), (.window, "9:30-21:30"), (.window, "09:30"), (.window, "24:00-24:00"), (.window, "09:60-10:00"),
        (.interval, "7s"), (.interval, "4m"), (.interval, "12h1m"), (.interval, "13h"), (.interval, "30"), (.interval, "m"),
        (.interval, "30m30m"), (.interval, "-30m"), (.interval, ""), (.days, "funday"), (.days, ""), (.days, "mon,"),
        (.days, "Mon"), (.days, "mon-"), (.title, ""), (.title, "  "), (.title, "a\nb"), (.body, "a\u{1b}[2Jb"),
        (.urgency, "high"), (.grace, "0s"), (.grace, "59s"), (.grace, "25h"), (.zone, ""), (.zone, "/etc/localtime"),
        (.zone, "../etc"), (.zone, "Asia/Seoul\n"),
    ])
    func refusedValuesSayWhatTheKeyAccepts(key: SettingKey, text: String) {
        #expect(throws: SettingError.self) { try key.canonical(text) }
        #expect(key.problem(text)?.contains(key.accepts) == true)
    }

    @Test func theDefaultsAreTodaysPlan() throws {
        let plan = try PlanSettings(values: Dictionary(uniqueKeysWithValues: SettingKey.allCases.map { ($0.rawValue, $0.defaultValue) }))
        #expect(plan == PlanSettings.standard)
        #expect(plan.schedule.readings(on: LocalDate(year: 2026, month: 11, day: 23)).count == 25)
        #expect(plan.schedule.readings(on: LocalDate(year: 2026, month: 11, day: 28)).isEmpty)
    }

    func pendingSlots(_ d: RefillDecision) -> [PendingRequest] {
        d.added.enumerated().map {
            PendingRequest(
                rowID: Int64($0.offset + 1), identifier: $0.element.identifier, kind: .slot, fireAt: $0.element.fireAt,
                localDate: $0.element.local.date, zone: seoul.name, title: PlanSettings.standard.title, body: PlanSettings.standard.body)
        }
    }

    @Test func aChangedPlanRetiresWhatItNoLongerHasAndKeepsTheRest() throws {
        let now = at("2026-11-23T08:00")
        let pending = pendingSlots(decideRefill(now: now, zone: seoul, state: PlanState(pending: [])))
        var plan = PlanSettings.standard
        try plan.apply(.interval, "1h")
        let d = decideRefill(now: now, zone: seoul, state: PlanState(pending: pending), plan: plan)
        // 09:30, 10:30, … stay; 10:00, 11:00, … are retired.
        #expect(d.retired.allSatisfy { $0.state == .retired && $0.reason == "schedule changed" && $0.request.identifier.hasSuffix("_00") })
        #expect(d.retired.count == pending.filter { $0.identifier.hasSuffix("_00") }.count)
        #expect(d.added.allSatisfy { $0.identifier.hasSuffix("_30") })

        var text = PlanSettings.standard
        text.title = "공부 시작?"
        let t = decideRefill(now: now, zone: seoul, state: PlanState(pending: pending), plan: text)
        #expect(t.retired.count == 64 && t.retired.allSatisfy { $0.reason == "content changed" })
        #expect(t.added.map(\.identifier) == pending.map(\.identifier))
    }

    @Test func pausedAndSkippedSlotsAreRetiredAndComeBack() {
        let now = at("2026-11-23T08:00")
        let pending = pendingSlots(decideRefill(now: now, zone: seoul, state: PlanState(pending: [])))
        let monday = LocalDate(year: 2026, month: 11, day: 23)
        let paused = PlanState(pending: pending, exclusions: Exclusions(pause: Pause(since: now, until: at("2026-11-24T00:00"))))
        let p = decideRefill(now: now, zone: seoul, state: paused)
        #expect(p.retired.count == 25 && p.retired.allSatisfy { $0.state == .paused && $0.request.localDate == monday })
        #expect(p.added.allSatisfy { $0.local.date != monday })
        let skipped = PlanState(pending: [], exclusions: Exclusions(skippedDates: [monday.adding(days: 1)]))
        #expect(decideRefill(now: now, zone: seoul, state: skipped).added.allSatisfy { $0.local.date != monday.adding(days: 1) })
        // Back in the plan (no exclusion, nothing finished): Monday's slots are planned again.
        #expect(decideRefill(now: now, zone: seoul, state: PlanState(pending: [])).added.first?.local.date == monday)
    }

    @Test func aZoneChangeKeepsWallClockTimesAndNeverReplansIntoThePast() {
        let tokyo = Zone.fixed(name: "Test/Tokyo", offsetSeconds: 9 * 3600)
        let berlin = Zone.fixed(name: "Test/Berlin", offsetSeconds: 3600)
        let now = at("2026-11-23T08:00")
        let pending = pendingSlots(decideRefill(now: now, zone: tokyo, state: PlanState(pending: [])))
        // Now is 00:00 in Berlin: every slot moves 8 h later, none into the past.
        let later = decideRefill(now: now, zone: berlin, state: PlanState(pending: pending))
        #expect(later.retired.count == 64 && later.retired.allSatisfy { $0.state == .retired })
        #expect(later.added.allSatisfy { berlin.local($0.fireAt) == $0.local && $0.fireAt > now })
        // The other way, at Monday 20:00 Berlin: Monday's slots would be hours ago in Tokyo: missed, not re-planned.
        let evening = Instant(milliseconds: now.milliseconds + 20 * 3_600_000)
        let back = pendingSlots(decideRefill(now: evening, zone: berlin, state: PlanState(pending: [])))
        let d = decideRefill(now: evening, zone: tokyo, state: PlanState(pending: back))
        let mondays = d.retired.filter { $0.request.localDate == LocalDate(year: 2026, month: 11, day: 23) }
        #expect(!mondays.isEmpty && mondays.allSatisfy { $0.state == .missed })
        #expect(d.added.allSatisfy { $0.fireAt > evening - PlanPolicy.defaultGraceMilliseconds })
    }
}

/// docs/guide.md's settings table is the declarations' (`SettingKey`): every key in it once and no other,
/// each device-scoped key said to be "this device's own", each default shown. A new setting fails here until
/// the guide has its row.
@Suite struct GuideSettingsTableTests {
    struct Row {
        var keys: [String]
        var accepts: String
        var defaults: String
    }

    static func rows() throws -> [Row] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/guide.md").path
        let guide = try String(contentsOfFile: path, encoding: .utf8)
        let section = try #require(guide.components(separatedBy: "## Your plan").dropFirst().first)
        let table = section.split(separator: "\n").drop { !$0.hasPrefix("| key |") }.dropFirst(2).prefix { $0.hasPrefix("|") }
        return table.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let keys = cells[1].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            }
            return Row(keys: keys, accepts: cells[2], defaults: cells[3])
        }
    }

    @Test func everyKeyHasItsRowAndNoOther() throws {
        let rows = try Self.rows()
        let listed = rows.flatMap(\.keys)
        #expect(listed.sorted() == SettingKey.allCases.map(\.rawValue).sorted())
        #expect(Set(listed).count == listed.count, "a key listed twice")
        for row in rows {
            for name in row.keys {
                let key = try #require(SettingKey(rawValue: name))
                let own = row.accepts.hasPrefix("this device's own")
                #expect(own == (key.declaration.scope == .device), "\(name): 'this device's own' only for a device's setting")
                if !key.defaultValue.isEmpty {
                    #expect(row.defaults.contains("`\(key.defaultValue)`"), "\(name): the default `\(key.defaultValue)` is not in its row")
                } else {
                    #expect(row.defaults.hasPrefix("empty"), "\(name): an empty default is said as 'empty'")
                }
            }
        }
    }
}
