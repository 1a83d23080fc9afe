import Foundation
import PlannerCore
import PlannerSystem
import Testing

/// Events as text (how an inbox carries them) and `decideEvent`, the one place a change is applied.
@Suite struct PlanEventTests {
    let seoul = try! SystemZone.named("Asia/Seoul")
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }
    func date(_ text: String) -> LocalDate { LocalDate(iso: text)! }

    /// Lines written by hand from the format's description (not by the planner) read as these events.
    @Test func handWrittenLinesReadAsTheirEvents() {
        let skip = PlanEvent(
            line:
                "planner-event 2 id=0123456789abcdef at=1795396200000 origin=skip kind=skip dates=2026-12-24,2026-12-25 reason=Christmas%20Eve%0A%25\n"
        )
        #expect(
            skip
                == PlanEvent(
                    id: "0123456789abcdef", at: Instant(milliseconds: 1_795_396_200_000), origin: "skip",
                    change: .skip(dates: [date("2026-12-24"), date("2026-12-25")], reason: "Christmas Eve\n%")))
        let settings = PlanEvent(
            line: "planner-event 2 id=abcdefgh at=0 origin=config kind=settings set.title=공부%20시간 set.interval=45m reset=zone,grace\n")
        #expect(settings?.change == .settings(set: [SettingChange(.title, "공부 시간"), SettingChange(.interval, "45m")], reset: [.zone, .grace]))
        #expect(
            PlanEvent(line: "planner-event 2 id=abcdefgh at=5 origin=pause kind=pause until=9\n")?.change == .pause(until: Instant(milliseconds: 9)))
        #expect(PlanEvent(line: "planner-event 2 id=abcdefgh at=5 origin=resume kind=resume\n")?.change == .resume)
        #expect(
            PlanEvent(line: "planner-event 2 id=abcdefgh at=5 origin=add kind=add identifier=tea fire=900 title=Tea%20time body=green\n")?.change
                == .add(identifier: "tea", fireAt: Instant(milliseconds: 900), title: "Tea time", body: "green"))
        #expect(
            PlanEvent(line: "planner-event 2 id=abcdefgh at=5 origin=add kind=add identifier=tea fire=900 title=Tea\n")?.change
                == .add(identifier: "tea", fireAt: Instant(milliseconds: 900), title: "Tea", body: ""))
        #expect(
            PlanEvent(line: "planner-event 2 id=abcdefgh at=5 origin=study kind=open zone=Asia/Seoul offset=32400\n")?.change
                == .open(zoneName: "Asia/Seoul", offsetSeconds: 32_400, graceMilliseconds: nil))
    }

    @Test func everyKindReadsBackTheSame() {
        let changes: [PlanChange] = [
            .open(zoneName: "America/Argentina/Buenos_Aires", offsetSeconds: -10_800, graceMilliseconds: 60_000),
            .open(zoneName: "Africa/Monrovia", offsetSeconds: -2_670, graceMilliseconds: nil),
            .skip(dates: [date("2026-12-24")], reason: nil),
            .skip(dates: [date("2026-12-24"), date("2027-01-01")], reason: "a b%c=d\u{2028}e\u{85}\u{7F}\t 여행"),
            .unskip(dates: [date("2026-12-24")]),
            .pause(until: nil), .pause(until: at("2026-12-01T00:00")), .resume,
            .settings(set: [SettingChange(.body, "x = y %41"), SettingChange(.window, "08:00-20:00")], reset: []),
            .settings(set: [], reset: [.icon]),
            .snooze(identifier: "Noti_AppOpenPromotion_2026_11_23_10_00", day: date("2026-11-23"), until: at("2026-11-23T10:10")),
            .add(identifier: "Noti_Reminder_2026_11_23_18_00_00", fireAt: at("2026-11-23T18:00"), title: "물 마시기 %", body: ""),
            .add(identifier: "call mum", fireAt: at("2026-11-24T09:00"), title: "Call", body: "line one\nline two = %"),
        ]
        #expect(Set(changes.map(\.kind)) == Set(PlanChange.Kind.allCases), "an example of every kind of change")
        for change in changes {
            let event = PlanEvent(id: "0123456789abcdef0123456789abcdef", at: at("2026-11-23T10:10:00.123"), origin: "open", change: change)
            let line = PlanEventText.line(event)
            #expect(line.hasSuffix("\n") && line.dropLast().allSatisfy { $0 != "\n" && $0 != "\u{2028}" }, "\(line)")
            #expect(PlanEvent(line: line) == event, "\(line)")
        }
    }

    /// The reference's `events` row (docs/sql.md) lists every kind of change, each once: it had left out
    /// `snooze` since answers became events.
    @Test func theSQLReferenceListsEveryKind() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/sql.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| `events` |") })
        let kinds = try #require(row.firstRange(of: "`kind` (").map { row[$0.upperBound...].prefix { $0 != ")" } })
        #expect(
            kinds.split(separator: ", ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
                == PlanChange.Kind.allCases.map(\.rawValue))
    }

    @Test func linesThatAreNotEventsAreRefused() {
        let good = "planner-event 2 id=abcdefgh at=5 origin=resume kind=resume"
        for bad in [
            good, good + " \n", good + " id=abcdefgh\n", "planner-event 3 id=abcdefgh at=5 origin=x kind=resume\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=explode\n", "planner-event 2 id=abcdefgh at=x origin=x kind=resume\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=skip dates=2026-02-30\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=skip reason=%zz dates=2026-02-03\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=skip reason=%FF dates=2026-02-03\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=settings set.colour=red\n",
            "planner-event 2 at=5 origin=x kind=resume\n", "planner-open 1 1 0 0 UTC\n",
            good + " pad=" + String(repeating: "x", count: PlanEventText.maximumLineBytes) + "\n",
        ] {
            #expect(PlanEvent(line: bad) == nil, "\(bad.prefix(120))")
        }
    }

    /// The format's compatibility rule (docs/sync.md): a field a newer planner added to a known kind is
    /// ignored; a later version of the line, an unknown kind or an unknown setting is a newer planner's line,
    /// kept for later (`isFromNewerPlanner`), while junk stays junk.
    @Test func linesFromANewerPlannerAreToldFromJunk() {
        let resume = "planner-event 2 id=abcdefgh at=5 origin=resume kind=resume"
        #expect(PlanEvent(line: resume + " colour=red\n")?.change == .resume)
        #expect(PlanEvent(line: "planner-event 2 id=abcdefgh at=5 origin=open kind=open zone=UTC offset=0 mood=keen\n") != nil)
        for newer in [
            "planner-event 3 id=abcdefgh at=5 origin=x kind=resume\n", "planner-event 17 anything at all\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=explode\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=settings set.colour=red\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=settings set.window=08:00-20:00 set.quiet-weekends=on\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=settings reset=window,colour\n",
        ] {
            #expect(PlanEvent(line: newer) == nil, "\(newer)")
            #expect(PlanEventText.isFromNewerPlanner(Array(newer.utf8)[...]), "\(newer)")
        }
        for junk in [
            resume, resume + "\n", "planner-event 1 id=abcdefgh at=5 origin=x kind=resume\n", "planner-event x kind=resume\n",
            "planner-event 3\n", "planner-event 1234567890 kind=resume\n", "planner-event 2 id=abcdefgh at=5 origin=x kind=Explode!\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=settings set.Colour=red\n",
            "planner-event 2 id=abcdefgh at=5 origin=x kind=settings set.window=08:00-20:00\n",
            "planner-event 2 id=abcdefgh at=5 origin=x\n", "planner-event 2 kind=explode kind=x\n", "planner-open 3 x\n",
        ] {
            #expect(!PlanEventText.isFromNewerPlanner(Array(junk.utf8)[...]), "\(junk)")
        }
        // The reader's digest changes when a kind or a setting is added (it is made from their declarations).
        #expect(PlanEventText.readerDigest.utf8.count == 16)
    }

    /// A device's file: a newer planner's line is neither taken nor refused, and the read's `consumed` stops
    /// before it (the file is read from there again), while the lines around it are taken.
    @Test func aFileKeepsANewerPlannersLinesUnconsumed() {
        let device = String(repeating: "ab", count: 16)
        func line(_ id: String, _ rest: String, version: Int = 2) -> String {
            "planner-event \(version) id=\(id) at=1795396200000 origin=x kind=\(rest) device=\(device) stamp=1795396200000.0\n"
        }
        let first = line("aaaaaaaa", "resume")
        let newer = line("bbbbbbbb", "teleport")
        let later = line("cccccccc", "resume")
        let newest = line("dddddddd", "resume", version: 3)
        let extra = line("eeeeeeee", "resume hue=blue")
        let bytes = Array((first + newer + later + newest + extra).utf8)
        let read = SyncFileText.read(bytes[...], device: device, now: Instant(milliseconds: 1_795_396_200_000))
        #expect(read.events.map(\.id) == ["aaaaaaaa", "cccccccc", "eeeeeeee"])
        #expect(read.newer == 2 && read.refused.isEmpty, "\(read.refused)")
        #expect(read.consumed == first.utf8.count)
        // A device line of a later version too.
        let deviceLine = "planner-device 2 id=\(device) name=laptop at=5 colour=red\n"
        let second = SyncFileText.read(Array((first + deviceLine).utf8)[...], device: device, now: Instant(milliseconds: 1_795_396_200_000))
        #expect(second.newer == 1 && second.consumed == first.utf8.count)
        // A device line of this version with a field added later is read.
        let known = SyncFileText.read(
            Array("planner-device 1 id=\(device) name=laptop at=5 colour=red\n".utf8)[...], device: device, now: Instant(milliseconds: 5))
        #expect(known.names.map(\.name) == ["laptop"])
    }

    /// Read from outside, a well-formed event is applied only if a planner command could have made it.
    @Test func eventsNoCommandCouldMakeHaveAProblem() {
        func problem(_ change: PlanChange, id: String = "0123456789abcdef", at: Int64 = 1_795_396_200_000, origin: String = "open") -> String? {
            PlanEvent(id: id, at: Instant(milliseconds: at), origin: origin, change: change).problem
        }
        let open = PlanChange.open(zoneName: "Asia/Seoul", offsetSeconds: 32_400, graceMilliseconds: nil)
        #expect(problem(open) == nil)
        #expect(problem(open, id: "short") != nil)
        #expect(problem(open, id: "UPPERCASE0123") != nil)
        #expect(problem(open, id: "../../etc/passwd") != nil)
        #expect(problem(open, origin: "Open") != nil)
        #expect(problem(open, at: -1) != nil)
        #expect(problem(open, at: 999_999_999_999_999_999) != nil)
        // The supported years' edges, as a UTC calendar date says them (the oracle: the date's year).
        let lastMillisecond = LocalDateTime(date: LocalDate(year: 9991, month: 1, day: 1), hour: 0, minute: 0).epochMillisecondsAsIfUTC - 1
        for ms in [0, 1, lastMillisecond - 1, lastMillisecond, lastMillisecond + 1, lastMillisecond + 2, Int64.min, Int64.max] {
            let year = LocalDateTime(epochMillisecondsAsIfUTC: ms).date.year
            #expect((problem(open, at: ms) == nil) == (ms >= 0 && supportedYears.contains(year)), "\(ms)")
            let stamped = PlanEvent(
                id: "0123456789abcdef", at: Instant(milliseconds: 0), origin: "open", change: open,
                stamp: Stamp(milliseconds: ms, counter: 0, device: String(repeating: "ab", count: 16)))
            #expect((stamped.problem == nil) == (ms >= 0 && supportedYears.contains(year)), "stamp \(ms)")
        }
        #expect(problem(.open(zoneName: "Asia/Seoul", offsetSeconds: 200_000, graceMilliseconds: nil)) != nil)
        #expect(problem(.open(zoneName: "Asia/Seoul", offsetSeconds: 0, graceMilliseconds: -5)) != nil)
        #expect(problem(.open(zoneName: "Asia/\u{1B}[2J", offsetSeconds: 0, graceMilliseconds: nil)) != nil)
        #expect(problem(.skip(dates: [LocalDate(year: 12_000, month: 1, day: 1)], reason: nil)) != nil)
        #expect(problem(.skip(dates: [date("2026-12-24")], reason: "\u{1B}[31mred")) != nil)
        #expect(problem(.pause(until: Instant(milliseconds: 1_795_396_200_000))) != nil)
        #expect(problem(.settings(set: [], reset: [])) != nil)
        #expect(problem(.settings(set: [SettingChange(.interval, "30 minutes")], reset: [])) != nil, "not the canonical text config stores")
        #expect(problem(.settings(set: [SettingChange(.interval, "45m")], reset: [])) == nil)
        // A one-off: what `planner add` accepts, after the add and within the supported years.
        let later = Instant(milliseconds: 1_795_400_000_000)
        #expect(problem(.add(identifier: "tea", fireAt: later, title: "Tea", body: "")) == nil)
        #expect(problem(.add(identifier: "", fireAt: later, title: "Tea", body: "")) != nil)
        #expect(problem(.add(identifier: String(repeating: "x", count: 201), fireAt: later, title: "Tea", body: "")) != nil)
        #expect(problem(.add(identifier: "tea\n", fireAt: later, title: "Tea", body: "")) != nil)
        #expect(problem(.add(identifier: "tea", fireAt: later, title: " ", body: "")) != nil)
        #expect(problem(.add(identifier: "tea", fireAt: later, title: "Tea\u{202E}", body: "")) != nil)
        #expect(problem(.add(identifier: "tea", fireAt: later, title: "Tea", body: "\u{200B}")) != nil)
        #expect(problem(.add(identifier: "tea", fireAt: Instant(milliseconds: 1_795_396_200_000), title: "Tea", body: "")) != nil)
        #expect(problem(.add(identifier: "tea", fireAt: Instant(milliseconds: Int64.max), title: "Tea", body: "")) != nil)
    }

    func facts(
        _ values: [String: String] = [:], defaults: [String: String] = [:], pending: [PendingRequest] = [], exclusions: Exclusions = Exclusions()
    ) -> PlanFacts {
        var state = PlanState(pending: pending)
        state.exclusions = exclusions
        return PlanFacts(settingValues: values, settingDefaults: defaults, state: state)
    }

    /// An open decides exactly what `decideOpen` does on the plan the settings make, at the event's instant.
    @Test func anOpenIsDecidedAtItsOwnInstantInThePlansZone() {
        let event = PlanEvent(
            id: "0123456789abcdef", at: at("2026-11-23T10:10"), origin: "open",
            change: .open(zoneName: "Europe/Paris", offsetSeconds: 3_600, graceMilliseconds: 60_000))
        let effect = decideEvent(event, facts: facts(["zone": "Asia/Seoul"])) { _ in seoul }
        let expected = decideOpen(
            now: at("2026-11-23T10:10"), zone: seoul, policy: PlanPolicy(graceMilliseconds: 60_000),
            state: PlanState(pending: []), plan: PlanSettings(zone: "Asia/Seoul"))
        #expect(effect.open == expected)
        #expect(effect.open?.date == date("2026-11-23"), "the plan's day, not Paris's")
        #expect(effect.refill.added.first?.identifier == "Noti_AppOpenPromotion_2026_11_24_09_30")
    }

    @Test func aSkipOfTodayTakesItsRemainingSlotsOut() {
        let now = at("2026-11-23T10:10")
        let before = decideRefill(now: now, zone: seoul, state: PlanState(pending: []), plan: PlanSettings(zone: "Asia/Seoul"))
        let pending = before.added.enumerated().map { i, slot in
            PendingRequest(
                rowID: Int64(i + 1), identifier: slot.identifier, kind: .slot, fireAt: slot.fireAt, localDate: slot.local.date,
                zone: "Asia/Seoul", title: PlanSettings.standard.title, body: PlanSettings.standard.body)
        }
        let effect = decideEvent(
            PlanEvent(id: "0123456789abcdef", at: now, origin: "skip", change: .skip(dates: [date("2026-11-23")], reason: nil)),
            facts: facts(["zone": "Asia/Seoul"], pending: pending)
        ) { _ in seoul }
        let today = pending.filter { $0.localDate == date("2026-11-23") }
        #expect(today.count == 23)
        #expect(Set(effect.refill.retired.map(\.request)) == Set(today) && effect.refill.retired.allSatisfy { $0.state == .skipped })
        #expect(effect.skipped == [date("2026-11-23")])
    }

    /// `config reset` goes back to the row's own default (the zone a plan was made in), and a value that
    /// is already what is asked changes no row.
    @Test func settingsChangeOnlyWhatDiffersAndResetToTheRowsDefault() {
        let event = PlanEvent(
            id: "0123456789abcdef", at: at("2026-11-23T10:10"), origin: "config",
            change: .settings(set: [SettingChange(.interval, "30m"), SettingChange(.title, "Study!")], reset: [.zone]))
        var resolved: [String] = []
        let effect = decideEvent(event, facts: facts(["interval": "30m", "zone": "Europe/Paris", "title": "x"], defaults: ["zone": "Asia/Seoul"])) {
            resolved.append($0)
            return seoul
        }
        #expect(effect.settings == [SettingChange(.title, "Study!"), SettingChange(.zone, "Asia/Seoul")])
        #expect(effect.plan.zone == "Asia/Seoul" && effect.plan.title == "Study!")
        #expect(resolved == ["Asia/Seoul"])
    }

    @Test func aPauseReplacesTheOneInForceAndAResumeEndsIt() {
        let now = at("2026-11-23T10:10")
        let inForce = Exclusions(pause: Pause(since: at("2026-11-20T00:00"), until: nil))
        let pause = decideEvent(
            PlanEvent(id: "0123456789abcdef", at: now, origin: "pause", change: .pause(until: at("2026-11-25T00:00"))),
            facts: facts(exclusions: inForce)
        ) { _ in seoul }
        #expect(pause.endsPause && pause.startsPause == Pause(since: now, until: at("2026-11-25T00:00")))
        #expect(pause.refill.added.first?.identifier == "Noti_AppOpenPromotion_2026_11_25_09_30")
        let resume = decideEvent(
            PlanEvent(id: "0123456789abcdef", at: now, origin: "resume", change: .resume),
            facts: facts(exclusions: inForce)
        ) { _ in seoul }
        #expect(resume.endsPause && resume.startsPause == nil)
        #expect(resume.refill.added.first?.identifier == "Noti_AppOpenPromotion_2026_11_23_10_30")
        let nothing = decideEvent(PlanEvent(id: "0123456789abcdef", at: now, origin: "resume", change: .resume), facts: facts()) { _ in seoul }
        #expect(!nothing.endsPause)
    }

    @Test func idsAreThirtyTwoHexDigits() {
        var generator = SystemRandomNumberGenerator()
        let ids = (0..<100).map { _ in PlanEvent.newID(using: &generator) }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
    }
}
