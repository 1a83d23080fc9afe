import ArgumentParser
import PlannerCommands
import PlannerCore

struct PlanAheadCommand: ContextCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show the study slots the plan will produce, day by day from now (beyond the 64 pending).",
        discussion: """
            Each day shows its slot times still to come in the plan's zone, or why it has none: not one of the \
            plan's days (weekend), skipped, paused, opened (studying started) or over. What refill will go on \
            planning if nothing changes; `planner list` shows what is pending now. In measurement mode (config set \
            experiment on) the slots held back at random are listed apart: pending like the others, never shown.
            """)

    @OptionGroup var common: CommonOptions
    @Option(name: .long, parsing: .unconditional, help: "How many days to show, from today (1-366).")
    var days: Int = 14
    @Flag(
        name: .long,
        help:
            "Print a JSON array: date, weekday, slots (RFC 3339), withheld (measurement mode's slots held back, RFC 3339), reason (null when there are slots or withheld ones)."
    )
    var json = false

    func validate() throws {
        if !(1...366).contains(days) { throw ValidationError("--days must be from 1 to 366") }
    }

    func run(_ ctx: RunContext) throws {
        let report = try ReadingCommands.planAhead(ctx, db: common.db, now: common.now, days: days)
        PlanAheadReport(
            days: report.days, intervalMinutes: report.settings.schedule.intervalMinutes, zone: report.zone,
            usualTime: report.settings.usualTime ? report.settings.schedule.usual?.decision.why : nil
        ).print(
            json: json, to: ctx.output)
    }

    static func reason(_ noSlots: PlannedDay.NoSlots) -> String {
        switch noSlots {
        case .notInDays(let weekend): return weekend ? "weekend" : "not a study day"
        case .skipped: return "skipped"
        case .paused: return "paused"
        case .opened: return "opened"
        case .over: return "over"
        }
    }

    /// `09:30-21:30 every 30m (25)`; a day cut by a pause or a DST change shows each run of slots.
    static func describe(_ slots: [Slot], intervalMinutes: Int) -> String {
        func hm(_ s: Slot) -> String { "\(pad(s.local.hour, 2)):\(pad(s.local.minute, 2))" }
        var runs: [[Slot]] = []
        for slot in slots {
            // Wall-clock minutes from the earlier slot, across midnight too (a window like 20:00-01:30).
            if let last = runs.last?.last,
                (slot.local.epochMillisecondsAsIfUTC - last.local.epochMillisecondsAsIfUTC) / 60_000 == Int64(intervalMinutes)
            {
                runs[runs.count - 1].append(slot)
            } else {
                runs.append([slot])
            }
        }
        let text = runs.map { $0.count == 1 ? hm($0[0]) : "\(hm($0[0]))-\(hm($0[$0.count - 1]))" }.joined(separator: ", ")
        let every = runs.contains { $0.count > 1 } ? " every \(describeDuration(milliseconds: Int64(intervalMinutes) * 60_000))" : ""
        return "\(text)\(every) (\(slots.count))"
    }
}

/// The days ahead and the slots each would get.
struct PlanAheadReport: Report {
    let days: [PlannedDay]
    let intervalMinutes: Int
    let zone: Zone
    /// The `usual-time` schedule's decision, in words (nil: the grid schedule).
    var usualTime: String? = nil

    var json: JSON {
        .array(
            days.map { day in
                .object([
                    ("date", .string(day.date.description)),
                    ("weekday", .string(Weekdays.names[day.date.isoWeekday - 1])),
                    ("slots", .array(day.slots.map { .time($0.fireAt, in: zone) })),
                    ("withheld", .array(day.withheld.map { .time($0.fireAt, in: zone) })),
                    ("reason", .text(day.noSlots.map(PlanAheadCommand.reason))),
                ])
            })
    }

    var text: String {
        let rows =
            [["DAY (\(zone.name))", "SLOTS"]]
            + days.map { day in
                [
                    "\(Formatting.weekdays[day.date.isoWeekday - 1]) \(day.date)",
                    (day.noSlots.map(PlanAheadCommand.reason)
                        ?? (day.slots.isEmpty ? "none shown" : PlanAheadCommand.describe(day.slots, intervalMinutes: intervalMinutes)))
                        + (day.withheld.isEmpty
                            ? ""
                            : "; withheld (measurement mode): "
                                + day.withheld.map { "\(pad($0.local.hour, 2)):\(pad($0.local.minute, 2))" }.joined(separator: ", ")),
                ]
            }
        let total = days.reduce(0) { $0 + $1.slots.count }
        return Formatting.table(rows) + "\n\(total) slot\(total == 1 ? "" : "s") in \(days.count) day\(days.count == 1 ? "" : "s")"
            + (usualTime.map { "\nSchedule usual-time: \($0) (decided again each day)" } ?? "")
    }
}
