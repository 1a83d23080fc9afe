import Foundation
import Testing

@testable import PlannerCore

/// The calendar folder's text: names, what the plan wants written, and reading back what a phone rewrote.
@Suite struct CalendarFolderTextTests {
    let seoul = Zone.fixed(name: "Asia/Seoul", offsetSeconds: 9 * 3600)
    func at(_ text: String) -> Instant { try! parseTime(text, in: seoul) }

    @Test func sha256MatchesTheStandardsVectors() {
        // FIPS 180-4's examples, and a message longer than one block.
        #expect(SHA256.hex("abc".utf8) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("".utf8) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// Every length from 0 to 300 bytes (each padding case, one to six blocks) against Python's hashlib.
    @Test func sha256AgreesWithPythonOnEveryLengthAcrossBlocks() throws {
        let inputs = (0...300).map { n in (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) } }
        let script = """
            import hashlib, sys
            for line in sys.stdin:
                print(hashlib.sha256(bytes.fromhex(line.strip())).hexdigest())
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script]
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        let hex = inputs.map { $0.map { String(format: "%02x", $0) }.joined() + "\n" }.joined()
        input.fileHandleForWriting.write(Data(hex.utf8))
        try input.fileHandleForWriting.close()
        let expected = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        p.waitUntilExit()
        #expect(expected.count == inputs.count)
        for (n, (bytes, want)) in zip(inputs, expected).enumerated() {
            #expect(SHA256.hex(bytes) == String(want), "\(n) bytes")
        }
    }

    @Test func everyUIDIsPlannerPrefixedAndVdirsyncerSafe() {
        let safe = { (uid: String) in
            uid.utf8.allSatisfy { c in
                (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || "_.+-".utf8.contains(c)
            }
        }
        let uids = [
            CalendarFolderText.slotUID("Noti_AppOpenPromotion_2026_11_23_09_30"),
            CalendarFolderText.oneOffUID("dentist; at 3, \"really\" / ✓"),
            CalendarFolderText.dayUID(LocalDate(year: 2026, month: 11, day: 23)),
        ]
        #expect(uids[0] == "planner-Noti_AppOpenPromotion_2026_11_23_09_30")
        #expect(uids[2] == "planner-day-2026-11-23")
        #expect(uids[1].count == "planner-oneoff-".count + 32)
        for uid in uids {
            #expect(safe(uid) && CalendarFolderText.kind(ofUID: uid) != nil, "\(uid)")
            #expect(CalendarFolderText.uid(fromFileName: uid + ".ics") == uid)
        }
        for foreign in [
            "planner-day-2026-13-01", "planner-day-2026-1-1", "planner-oneoff-XYZ", "planner-Noti_AppOpenPromotion_2026_11_23_9_30",
            "planner-", "abc@google.com", "planner-oneoff-" + String(repeating: "A", count: 32),
        ] {
            #expect(CalendarFolderText.kind(ofUID: foreign) == nil, "\(foreign)")
        }
        #expect(CalendarFolderText.uid(fromFileName: "planner-day-2026-11-23.ics.tmp") == nil)
        #expect(CalendarFolderText.uid(fromFileName: ".planner-day-2026-11-23.ics") == nil)
    }

    func items(now: String, opens: [LocalDate: Instant] = [:], days: Int = 3) -> [CalendarFolderText.Item] {
        let settings = PlanSettings()
        let plan = planAhead(
            now: at(now), zone: seoul, schedule: settings.schedule,
            exclusions: Exclusions(openedDates: Set(opens.keys)), days: days)
        return CalendarFolderText.items(days: plan, opens: opens, oneOffs: [], zone: seoul, settings: settings)
    }

    @Test func aDayHasItsEventsAndOneTaskCompletedOnceOpened() {
        let monday = LocalDate(year: 2026, month: 11, day: 23)
        let open = items(now: "2026-11-23T12:10", opens: [monday: at("2026-11-23T12:05")], days: 1)
        #expect(open.count == 1 && open[0].isTask)
        let text = String(decoding: open[0].bytes(), as: UTF8.self)
        #expect(text.contains("STATUS:COMPLETED\r\nCOMPLETED:20261123T030500Z\r\n"))
        #expect(text.contains("DUE;TZID=Asia/Seoul:20261123T213000\r\n"))
        let ahead = items(now: "2026-11-23T12:10", days: 1)
        #expect(ahead.filter { !$0.isTask }.count == 19)  // 12:30 … 21:30
        // The digest ignores the stamp: the same plan is the same files.
        #expect(ahead == items(now: "2026-11-23T12:12", days: 1))
        // Weekend days have neither events nor a task.
        #expect(items(now: "2026-11-21T08:00", days: 2).isEmpty)
    }

    /// Items digest their text with the calendar head's lines read once (`semanticDigest(shared:…)`): the
    /// same digest as the whole file read back, for every item of 14 days in a zone with DST changes (its
    /// VTIMEZONE has rules), a day opened, a one-off, and the rest starting with a folded line's space.
    @Test func sharedHeadDigestsEqualTheWholeFiles() throws {
        let berlin = Zone(name: "Europe/Berlin") { t in
            // CET/CEST with the EU rule for 2026 (last Sunday of March and October, 01:00 UTC).
            t >= 1_774_746_000 && t < 1_792_890_000 ? 7200 : 3600
        }
        let settings = PlanSettings()
        let now = try parseTime("2026-10-20T08:00", in: berlin)
        let plan = planAhead(now: now, zone: berlin, schedule: settings.schedule, exclusions: Exclusions(), days: 14)
        let opened = plan[1].date
        let oneOff = CalendarFolderText.OneOff(identifier: "tea", fireAt: now + 3_600_000, title: "Tea", body: "green")
        let items = CalendarFolderText.items(days: plan, opens: [opened: now + 86_400_000], oneOffs: [oneOff], zone: berlin, settings: settings)
        // Today's slots, and a series per time of day to the Friday before the 25 October change and one from
        // it (the Monday after: 31.5 hours after it).
        #expect(
            items.filter(\.isSeries).count == 50
                && items.filter { !$0.isSeries && !$0.isTask && $0.day != nil }.allSatisfy { $0.uid.contains("_2026_10_20_") })
        #expect(
            items.contains { $0.uid == "planner-series-0930-2026-10-25" && String(decoding: $0.bytes(), as: UTF8.self).contains("20261026T093000") })
        #expect(items.contains { String(decoding: $0.bytes(), as: UTF8.self).contains("RRULE:FREQ=DAILY;UNTIL=20261023T073000Z\r\n") })
        for item in items {
            #expect(item.digest == CalendarFolderText.semanticDigest(String(decoding: item.bytes(), as: UTF8.self)), "\(item.fileName)")
        }
        let shared = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"
        let lines = CalendarFolderText.semanticLines(shared)
        for rest in ["BEGIN:VEVENT\r\nUID:x\r\nEND:VEVENT\r\n", " continued\r\nUID:y\r\n", "\tcontinued\r\n", ""] {
            #expect(
                CalendarFolderText.semanticDigest(shared: shared, sharedLines: lines, rest: rest) == CalendarFolderText.semanticDigest(shared + rest))
        }
        // A shared part that does not end a line is read whole.
        #expect(
            CalendarFolderText.semanticDigest(shared: "BEGIN:VCAL", sharedLines: CalendarFolderText.semanticLines("BEGIN:VCAL"), rest: "ENDAR\r\n")
                == CalendarFolderText.semanticDigest("BEGIN:VCALENDAR\r\n"))
    }

    /// Plans that share items but differ in what an item is made from: the title and body, the zone, the
    /// window (one across midnight), the day's first open, a one-off's text, and the year whose VTIMEZONE
    /// the head holds (a horizon from December into January).
    func variedPlans() -> [[CalendarFolderText.Item]] {
        let berlin = Zone(name: "Europe/Berlin") { t in t >= 1_774_746_000 && t < 1_792_890_000 ? 7200 : 3600 }
        let fixedBerlin = Zone.fixed(name: "Europe/Berlin", offsetSeconds: 3600)
        var plans: [[CalendarFolderText.Item]] = []
        for zone in [seoul, berlin, fixedBerlin] {
            for (title, body) in [("Study", "Open your lessons"), ("Study", "Open"), ("学习", "Open your lessons")] {
                for window in ["09:30-21:30", "20:00-01:00"] {
                    for now in ["2026-12-30T08:00", "2027-01-02T23:30"] {
                        var settings = PlanSettings()
                        settings.title = title
                        settings.body = body
                        let parts = window.split(separator: "-").map { $0.split(separator: ":").map { Int($0)! } }
                        settings.schedule.startMinute = parts[0][0] * 60 + parts[0][1]
                        settings.schedule.endMinute = parts[1][0] * 60 + parts[1][1]
                        let at = try! parseTime(now, in: zone)
                        let plan = planAhead(now: at, zone: zone, schedule: settings.schedule, exclusions: Exclusions(), days: 8)
                        for opened in [nil, at + 60_000, at + 60_500, at + 61_000] {
                            let opens = opened.map { [plan[0].date: $0] } ?? [:]
                            let oneOff = CalendarFolderText.OneOff(
                                identifier: "tea", fireAt: try! parseTime("2027-01-04T10:00", in: zone),
                                title: title, body: opened == nil ? "green" : "black")
                            plans.append(CalendarFolderText.items(days: plan, opens: opens, oneOffs: [oneOff], zone: zone, settings: settings))
                        }
                    }
                }
            }
        }
        return plans
    }

    /// The recipe stands for the text (what lets a refill skip making it): across plans that share
    /// items, one recipe is always one file (DTSTAMP included), and two texts never share a recipe.
    @Test func oneRecipeIsOneText() {
        var texts: [String: [UInt8]] = [:]
        var shared = 0
        var mixed: [String] = []
        for item in variedPlans().joined() {
            let bytes = item.bytes()
            if let seen = texts[item.recipe] {
                if seen != bytes { mixed.append(item.recipe) }
                shared += 1
            }
            texts[item.recipe] = bytes
        }
        #expect(mixed.isEmpty, "\(mixed.count) recipes made two texts, the first: \(mixed.first ?? "")")
        #expect(shared > 1000)  // the plans do share items: the check compared something
        #expect(Set(texts.values).count == texts.count)  // and no two recipes made one file
    }

    /// The texts of `recipeVersion` 1, pinned. A change to what an item's text says fails here: bump
    /// `CalendarFolderText.recipeVersion` (else files remembered by an older recipe are never rewritten),
    /// then record the new digest.
    @Test func theTextsOfThisRecipeVersionArePinned() {
        var all: [UInt8] = []
        for item in variedPlans().joined() { all += Array(item.fileName.utf8) + item.bytes() }
        #expect(CalendarFolderText.recipeVersion == 1)
        // The plans' later days are series (recipe kind `S`): a new kind, no earlier text changed.
        #expect(SHA256.hex(all) == "b9547108eb97bdba4e82a1042fe8b46cd02e7ac9d15bc772589ce33f9d501dda")
    }

    @Test func theTaskWrittenReadsBackAsItself() {
        let monday = LocalDate(year: 2026, month: 11, day: 23)
        for opened in [nil, at("2026-11-23T12:05")] {
            let task = items(now: "2026-11-23T08:00", opens: opened.map { [monday: $0] } ?? [:], days: 1).first { $0.isTask }!
            let reading = CalendarFolderText.read(task.bytes(), zone: seoul)
            #expect(reading == .task(uid: "planner-day-2026-11-23", date: monday, completed: opened != nil, completedAt: opened))
        }
    }

    /// What a phone's task app sends back: another order, other folding, lowercase, parameters, LF only.
    @Test func aPhonesRewriteOfTheTaskIsReadLeniently() {
        let monday = LocalDate(year: 2026, month: 11, day: 23)
        let rewritten = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:+//IDN bitfire.at//ical4android (org.tasks)\r
            BEGIN:VTODO\r
            DTSTAMP:20261101T000000Z\r
            completed;VALUE=DATE-TIME:20261123T041500Z\r
            PERCENT-COMPLETE:100\r
            x-planner-id:2026-11-23\r
            status:completed\r
            DUE;TZID="Asia/Seoul";VALUE=DATE-TIME:20261123T213000\r
            SUMMARY:Study \r
             today\r
            uid:planner-day-2026-11-\r
            \t23\r
            BEGIN:VALARM\r
            TRIGGER:-PT5M\r
            ACTION:DISPLAY\r
            DESCRIPTION:x\r
            UID:alarm-uid\r
            END:VALARM\r
            END:VTODO\r
            END:VCALENDAR\r

            """
        #expect(
            CalendarFolderText.read(Array(rewritten.utf8), zone: seoul)
                == .task(uid: "planner-day-2026-11-23", date: monday, completed: true, completedAt: at("2026-11-23T13:15")))
        // Floating and TZID times are read in the plan's zone (or the TZID's); bare LF line ends too.
        let floating = rewritten.replacingOccurrences(of: "\r", with: "")
            .replacingOccurrences(of: "completed;VALUE=DATE-TIME:20261123T041500Z", with: "COMPLETED;TZID=Asia/Seoul:20261123T131500")
        #expect(
            CalendarFolderText.read(Array(floating.utf8), zone: seoul)
                == .task(uid: "planner-day-2026-11-23", date: monday, completed: true, completedAt: at("2026-11-23T13:15")))
        // A byte order mark before BEGIN (written by some Windows and Android clients): the same task.
        #expect(
            CalendarFolderText.read([0xEF, 0xBB, 0xBF] + Array(rewritten.utf8), zone: seoul)
                == .task(uid: "planner-day-2026-11-23", date: monday, completed: true, completedAt: at("2026-11-23T13:15")))
        // Completed without a time: done, when unknown.
        let untimed = rewritten.replacingOccurrences(of: "completed;VALUE=DATE-TIME:20261123T041500Z\r\n", with: "")
        #expect(
            CalendarFolderText.read(Array(untimed.utf8), zone: seoul)
                == .task(uid: "planner-day-2026-11-23", date: monday, completed: true, completedAt: nil))
    }

    @Test(arguments: [
        ("not ical at all", "not an iCalendar property"),
        ("BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:planner-day-2026-11-23\r\nSTATUS:COMPLETED\r\nEND:VTODO\r\n", "not a complete VCALENDAR"),
        ("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n", "no UID"),
        ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:planner-day-2026-11-23\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", "without its one VTODO"),
        (
            "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:planner-day-2026-11-23\r\nEND:VTODO\r\nBEGIN:VTODO\r\nUID:planner-day-2026-11-24\r\nEND:VTODO\r\nEND:VCALENDAR\r\n",
            "more than one UID"
        ),
        ("BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:planner-day-2026-11-23\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", "does not close"),
        (String(repeating: "BEGIN:X\r\n", count: 20), "nested too deep"),
    ])
    func hostileOrBrokenFilesAreUnusableWithAReason(text: String, why: String) {
        guard case .unusable(let reason) = CalendarFolderText.read(Array(text.utf8), zone: seoul) else {
            Issue.record("\(text) was read as usable")
            return
        }
        #expect(reason.contains(why), "\(reason)")
    }

    @Test func badUTF8AndForeignUIDsAreNotOurs() {
        #expect(CalendarFolderText.read([0x42, 0xff, 0xfe], zone: seoul) == .unusable("not UTF-8 text (ignored)"))
        let foreign = "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\nUID:planner-day-2026-11-23x\r\nSTATUS:COMPLETED\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        #expect(CalendarFolderText.read(Array(foreign.utf8), zone: seoul) == .foreign(uid: "planner-day-2026-11-23x"))
    }
}

/// An item read back from a CalDAV server says what the planner wrote, whatever the server reordered,
/// refolded or restamped (Radicale 3.1.8 through vdirsyncer, as calendar-first-day's two computers saw it).
@Suite struct SemanticDigestTests {
    let ours =
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//planner//planner//EN\r\nBEGIN:VEVENT\r\nUID:planner-x\r\nDTSTAMP:20261126T000000Z\r\nDTSTART;TZID=UTC:20261126T113000\r\nDURATION:PT5M\r\nSUMMARY:Time to study?\r\nX-PLANNER-ID:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    let radicales =
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//planner//planner//EN\r\nBEGIN:VEVENT\r\nUID:planner-x\r\nDTSTART:20261126T113000Z\r\nDURATION:PT5M\r\nDTSTAMP:20261127T101010Z\r\nSEQUENCE:4\r\nSUMMARY:Time to s\r\n tudy?\r\nX-PLANNER-ID:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

    @Test func reorderedRefoldedRestampedIsTheSame() {
        #expect(CalendarFolderText.semanticDigest(ours) == CalendarFolderText.semanticDigest(radicales))
        // What Radicale 3.1.8 really served for the zone named UTC: the TZID kept, and a Z.
        let served = radicales.replacingOccurrences(of: "DTSTART:20261126T113000Z", with: "DTSTART;TZID=UTC:20261126T113000Z")
        #expect(CalendarFolderText.semanticDigest(ours) == CalendarFolderText.semanticDigest(served))
    }

    @Test func anEditIsNot() {
        let edited = radicales.replacingOccurrences(of: "DURATION:PT5M\r\n", with: "DURATION:PT5M\r\nLOCATION:desk\r\n")
        #expect(CalendarFolderText.semanticDigest(ours) != CalendarFolderText.semanticDigest(edited))
        let moved = radicales.replacingOccurrences(of: "T113000Z", with: "T114500Z")
        #expect(CalendarFolderText.semanticDigest(ours) != CalendarFolderText.semanticDigest(moved))
    }
}
