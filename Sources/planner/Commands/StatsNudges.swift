import PlannerCommands
import PlannerCore

/// `planner stats --nudges`: measurement mode's estimates, each with its interval or why it has none.
struct NudgesEstimateReport: Report {
    let report: NudgesReport

    var json: JSON {
        let e = report.estimates
        return .object([
            ("experiment", .bool(report.experiment)),
            ("points", .int(e.points)),
            ("days", .int(e.days)),
            ("overall", Self.json(e.overall)),
            ("by_hour", .array(e.byHour.map { .object([("hour", .int($0.hour))] + Self.fields($0.effect)) })),
            ("by_shown_before", .array(e.byShownBefore.map { .object([("shown_before", .int($0.shownBefore))] + Self.fields($0.effect)) })),
            (
                "decay",
                e.decay.map { .object([("estimate", .decimal($0.estimate)), ("low", .decimal($0.low)), ("high", .decimal($0.high))]) } ?? .null
            ),
        ])
    }

    static func json(_ effect: NudgeEffects.Effect) -> JSON { .object(fields(effect)) }

    static func fields(_ effect: NudgeEffects.Effect) -> [(String, JSON)] {
        func share(_ x: Double?) -> JSON { x.map(JSON.share) ?? .null }
        func signed(_ x: Double?) -> JSON { x.map(JSON.decimal) ?? .null }
        return [
            ("shown", .int(effect.shown)), ("withheld", .int(effect.withheld)), ("started_shown", share(effect.startedShown)),
            ("started_withheld", share(effect.startedWithheld)), ("effect", signed(effect.difference)), ("low", signed(effect.low)),
            ("high", signed(effect.high)),
        ]
    }

    var text: String {
        let e = report.estimates
        var lines = [
            "Measurement mode: "
                + (report.experiment
                    ? "on (each reminder after the day's first is held back 1 in 5)" : "off (planner config set experiment on starts it)")
        ]
        if report.experiment && !report.seeded {
            lines.append(
                "warning: measurement mode has no seed (its setting was changed outside planner), so nothing is held back; planner config set experiment off, then on, starts it again"
            )
        }
        guard e.points > 0 else {
            lines.append(
                report.experiment
                    ? "No decision points yet: each comes when a reminder after the day's first falls due before you have started."
                    : "No decision points recorded on this device.")
            return lines.joined(separator: "\n")
        }
        lines.append(
            "\(e.points) decision point\(e.points == 1 ? "" : "s") over \(e.days) study day\(e.days == 1 ? "" : "s"): \(e.overall.shown) reminder\(e.overall.shown == 1 ? "" : "s") shown, \(e.overall.withheld) withheld"
        )
        lines += ["", "Started within 60 minutes after a reminder shown and after one withheld (95 % intervals):", ""]
        var rows = [["", "SHOWN", "WITHHELD", "EFFECT"], ["all"] + Self.cells(e.overall)]
        rows += e.byHour.map { ["\(pad($0.hour, 2)):00-\(pad($0.hour, 2)):59"] + Self.cells($0.effect) }
        rows += e.byShownBefore.map {
            ["after \($0.shownBefore)\($0.shownBefore == NudgeEffects.shownBeforeGroups ? " or more" : "") shown"] + Self.cells($0.effect)
        }
        lines.append(Formatting.table(rows))
        lines.append("")
        if let decay = e.decay {
            lines.append(
                "One more reminder the same day is worth \(Self.decimal(decay.estimate)) (\(Self.decimal(decay.low)) to \(Self.decimal(decay.high))) of the one before (1: as much; 0: nothing)."
            )
        } else {
            lines.append("The worth of one more reminder: not enough yet (it needs days with a reminder withheld among the first few).")
        }
        return lines.joined(separator: "\n")
    }

    static func cells(_ effect: NudgeEffects.Effect) -> [String] {
        func percent(_ x: Double?, of n: Int) -> String { x.map { "\(Int(($0 * 100).rounded())) % of \(n)" } ?? "none" }
        func points(_ x: Double) -> String {
            let n = Int((x * 100).rounded())
            return n > 0 ? "+\(n)" : "\(n)"
        }
        let difference: String
        if let d = effect.difference {
            difference =
                "\(points(d)) points"
                + (effect.low.map { low in " (\(points(low)) to \(effect.high.map(points) ?? "?"))" } ?? " (too few to say)")
        } else {
            difference = "-"
        }
        return [percent(effect.startedShown, of: effect.shown), percent(effect.startedWithheld, of: effect.withheld), difference]
    }

    static func decimal(_ x: Double) -> String {
        let hundredths = Int((min(max(x, -1e9), 1e9) * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        return "\(sign)\(abs(hundredths) / 100).\(pad(abs(hundredths) % 100, 2))"
    }
}
