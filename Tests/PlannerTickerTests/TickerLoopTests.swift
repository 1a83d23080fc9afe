import PlannerCore
import PlannerSystem
import PlannerTestSupport
import Testing

@testable import PlannerStore
@testable import PlannerTicker

/// The ticker's loop run in this process: a fixed clock moved only by its own timer, a sink that records,
/// a temporary database. No program is started and no real time passes.
@Suite struct TickerLoopTests {
    let time = TestTime.seoul

    @Test func aDueReminderIsDeliveredOnceAtItsTime() throws {
        let db = try refilledPlan(at: "2026-11-23T12:00")
        let clock = FixedClock(time.at("2026-11-23T12:00"))
        let sink = CapturingSink(clock: clock)
        _ = try runLive(db, sink: sink, clock: clock, until: time.at("2026-11-23T13:10"))
        // The two slots of that hour (every 30 min from 09:30), each once, each at its time.
        #expect(sink.identifiers == ["Noti_AppOpenPromotion_2026_11_23_12_30", "Noti_AppOpenPromotion_2026_11_23_13_00"])
        #expect(sink.attempts.map(\.at) == [time.at("2026-11-23T12:30"), time.at("2026-11-23T13:00")])
        #expect(try db.inspection.integer("SELECT count(*) FROM delivered_notifications") == 2)
        #expect(
            try db.inspection.text(
                """
                SELECT group_concat(state) FROM (SELECT state FROM request WHERE fire_at_ms BETWEEN \(time.at("2026-11-23T12:30").milliseconds)
                AND \(time.at("2026-11-23T13:30").milliseconds) ORDER BY fire_at_ms)
                """) == "delivered,delivered,pending")

        // A second ticker later finds nothing left to deliver from that hour.
        let again = CapturingSink(clock: clock)
        _ = try runLive(db, sink: again, clock: clock, until: time.at("2026-11-23T13:20"))
        #expect(again.attempts.isEmpty)
    }

    @Test func aReminderCancelledByAnOpenIsNotDelivered() throws {
        let db = try refilledPlan(at: "2026-11-23T12:00")
        try db.recordAppOpen(now: time.at("2026-11-23T12:10"), zone: time.zone)
        let clock = FixedClock(time.at("2026-11-23T12:10"))
        let sink = CapturingSink(clock: clock)
        _ = try runLive(db, sink: sink, clock: clock, until: time.at("2026-11-24T09:45"))
        // Nothing for the rest of the opened day; the next morning's first slot is delivered.
        #expect(sink.identifiers == ["Noti_AppOpenPromotion_2026_11_24_09_30"])
        #expect(try db.inspection.integer("SELECT count(*) FROM delivered_notifications WHERE identifier LIKE '%2026_11_23%'") == 0)
    }

    @Test func aFailingSinkIsRetriedWithBackOffThenRecordedFailed() throws {
        let db = try refilledPlan(at: "2026-11-23T12:00")
        try db.add(
            NewRequest(identifier: "x", fireAt: time.at("2026-11-23T12:05"), title: "t", body: ""),
            now: time.at("2026-11-23T12:00"), zone: time.zone)
        let clock = FixedClock(time.at("2026-11-23T12:00"))
        let sink = CapturingSink(clock: clock, failing: .max)
        let run = try runLive(
            db, sink: sink, clock: clock, until: time.at("2026-11-23T12:10"),
            policy: PlanPolicy(graceMilliseconds: 3_000))
        // Attempts 1 s then 2 s apart (the back-off doubles); the next, 4 s later, would be past the 3 s grace.
        let start = time.at("2026-11-23T12:05")
        #expect(sink.attempts.filter { $0.identifier == "x" }.map(\.at) == [start, start + 1_000, start + 3_000])
        #expect(
            try db.inspection.text("SELECT state || '|' || attempts || '|' || error FROM request WHERE identifier = 'x'")
                == "failed|3|the test sink refused it")
        #expect(run.logLines.contains { $0.hasPrefix("gave up on x: its grace period is over") })
    }

    @Test func aFailingSinkThatRecoversDeliversOnTheRetry() throws {
        let db = try refilledPlan(at: "2026-11-23T12:00")
        let clock = FixedClock(time.at("2026-11-23T12:29"))
        let sink = CapturingSink(clock: clock, failing: 1)
        _ = try runLive(db, sink: sink, clock: clock, until: time.at("2026-11-23T12:31"))
        let slot = time.at("2026-11-23T12:30")
        #expect(sink.attempts.map(\.at) == [slot, slot + 1_000])
        #expect(try db.inspection.text("SELECT state || '|' || attempts FROM request WHERE identifier LIKE '%2026_11_23_12_30'") == "delivered|2")
    }

    /// `tick --once --sink stdout` as the command runs it, its line captured instead of written to fd 1.
    @Test func aOnceRunDeliversWhatIsDueThroughTheOutputAndReturnsNoFailure() throws {
        let db = try refilledPlan(at: "2026-11-23T12:00")
        let early = CapturedContext(onceAt: time.at("2026-11-23T12:29:59"), databasePath: db.resolvedPath)
        #expect(
            try TickerRun.once(
                database: db, policy: nil, sink: StdoutSink(output: early.context.output), verbose: false,
                context: early.context
            ).isEmpty)
        #expect(early.outputLines.isEmpty)

        let due = CapturedContext(onceAt: time.at("2026-11-23T12:30:00.250"), databasePath: db.resolvedPath)
        let failures = try TickerRun.once(
            database: db, policy: nil, sink: StdoutSink(output: due.context.output), verbose: false,
            context: due.context)
        #expect(failures.isEmpty)
        // identifier, fire_at in the plan's zone, title (the default): tab-separated, one line.
        #expect(due.outputLines == ["Noti_AppOpenPromotion_2026_11_23_12_30\t2026-11-23T12:30:00+09:00\tTime to study?\n"])
        // Late by the 250 ms of --now, plus the few this run took.
        #expect(try db.inspection.integer("SELECT lateness_ms BETWEEN 250 AND 2000 FROM delivered_notifications") == 1)
    }

    @Test func aOnceRunWhoseOutputFailsReportsTheFailure() throws {
        let db = try refilledPlan(at: "2026-11-23T12:00")
        let closed = CapturedContext(onceAt: time.at("2026-11-23T12:30"), databasePath: db.resolvedPath, outputFails: true)
        let failures = try TickerRun.once(
            database: db, policy: PlanPolicy(graceMilliseconds: 2_000), sink: StdoutSink(output: closed.context.output),
            verbose: false, context: closed.context)
        #expect(failures == ["Noti_AppOpenPromotion_2026_11_23_12_30: the test output is closed"])
        #expect(try db.inspection.text("SELECT state FROM request WHERE identifier LIKE '%2026_11_23_12_30'") == "failed")
    }
}
