import Foundation
import PlannerCore
import PlannerTestSupport
import Testing

@testable import PlannerStore

/// One id, two contents: every device keeps the same version whatever order the two arrive in. The case a
/// review found: an Anki review's open as a planner before 0.2.0 wrote it (its reader's stamp and zone) and
/// as this one writes it (the review's stamp, UTC), which every database records as device `anki`: the
/// choice must not depend on which line arrived second (it hashed the held line with the arriving device).
@Suite struct TwoVersionsTests {
    static let review: Int64 = 1_795_400_100_000
    static let x = String(repeating: "a", count: 32), y = String(repeating: "f", count: 32)

    static func line(device: String, stamp: String, zone: String, offset: Int) -> String {
        "planner-event 2 id=\(AnkiReviews.eventID(review: review)) at=\(review) origin=anki kind=open device=\(device) stamp=\(stamp) zone=\(zone) offset=\(offset)\n"
    }

    func kept(first: String, then second: String, firstDevice: String, secondDevice: String) throws -> String {
        let folder = temporaryDatabasePath() + ".sync"
        mkdir(folder, 0o700)
        let db = try PlannerDatabase(path: temporaryDatabasePath(), zoneForNewPlan: "Asia/Seoul")
        let now = Instant(milliseconds: Self.review + 3_600_000)
        try db.configure(set: [(.syncFolder, folder)], reset: [], now: now)
        try Data(first.utf8).write(to: URL(fileURLWithPath: folder + "/" + SyncFileText.fileName(device: firstDevice, sequence: 1)))
        _ = try db.sync(now: now)
        try Data(second.utf8).write(to: URL(fileURLWithPath: folder + "/" + SyncFileText.fileName(device: secondDevice, sequence: 1)))
        _ = try db.sync(now: Instant(milliseconds: now.milliseconds + 60_000))
        let stmt = try db.inspection.prepare(
            "SELECT stamp_ms || '.' || stamp_counter || ' ' || payload || ' ' || device FROM event WHERE origin = 'anki'")
        return try stmt.step() ? stmt.text(0) : "none"
    }

    @Test(arguments: [(Self.x, Self.y), (Self.y, Self.x)]) func eitherOrderKeepsTheSameVersion(devices: (String, String)) throws {
        let (old, new) = devices
        let oldLine = Self.line(device: old, stamp: "\(Self.review + 5_000).3", zone: "Asia/Seoul", offset: 32400)
        let newLine = Self.line(device: new, stamp: "\(Self.review).0", zone: "UTC", offset: 0)
        let a = try kept(first: oldLine, then: newLine, firstDevice: old, secondDevice: new)
        let b = try kept(first: newLine, then: oldLine, firstDevice: new, secondDevice: old)
        #expect(a == b && a.hasSuffix(" anki"), "\(a) | \(b)")
    }
}
