/// What a shown reminder does for one person, from measurement mode's randomised record (`MeasurementMode`):
/// the micro-randomised trial's estimate (HeartSteps, Drink Less) on one student. At each decision point (a
/// study slot after the day's first, its day not yet started) the reminder was shown or withheld at random;
/// the difference in starting soon after between the two, weighted by the recorded probabilities, is the
/// reminder's effect there. Pure: decision points in, estimates with 95 % intervals out.
public enum NudgeEffects {
    /// One decision point.
    public struct Point: Equatable, Sendable {
        /// The unit resampled together: a study day (its points share one start).
        public var cluster: Int
        /// The slot's minute of the day (local), the same slot on every day.
        public var minute: Int
        /// Study reminders shown earlier that study day.
        public var shownBefore: Int
        public var shown: Bool
        /// The chance it had of being withheld (0 < p < 1: the others were not randomised).
        public var withholdProbability: Double
        /// The day started within 60 minutes after the slot's time (the trials' outcome).
        public var startedWithin60: Bool
        /// The day started before the next slot's time: the outcome of this reminder alone, before the next
        /// one is shown (what the worth of one more reminder is estimated from).
        public var startedBeforeNext: Bool

        public init(
            cluster: Int, minute: Int, shownBefore: Int, shown: Bool, withholdProbability: Double, startedWithin60: Bool,
            startedBeforeNext: Bool
        ) {
            self.cluster = cluster
            self.minute = minute
            self.shownBefore = shownBefore
            self.shown = shown
            self.withholdProbability = withholdProbability
            self.startedWithin60 = startedWithin60
            self.startedBeforeNext = startedBeforeNext
        }
    }

    /// The effect in one group of decision points: the share that started within 60 minutes when shown and
    /// when withheld (each weighted by the inverse of its probability), their difference and its interval.
    public struct Effect: Equatable, Sendable {
        public var shown: Int
        public var withheld: Int
        public var startedShown: Double?
        public var startedWithheld: Double?
        public var difference: Double?
        public var low: Double?
        public var high: Double?
    }

    /// The worth of one more reminder the same day: how much of the previous reminder's effect the next one
    /// has (the simulator's ρ), with its interval. Compared within one slot of the day: on days when a
    /// reminder before it was withheld at random, the slot comes after one fewer shown, at the same hour.
    /// Its effect on starting before the next slot (this reminder's alone) with `m` shown before, over its
    /// effect with `m - 1`, pooled over slots and `m` up to `shownBeforeGroups` (the first reminders, where
    /// the question matters and the effects are large enough to compare), each pair weighted by the smaller
    /// arm of each side. nil when no pair has both arms on both sides, or the pooled effect with one fewer
    /// is not positive.
    public struct Decay: Equatable, Sendable {
        public var estimate: Double
        public var low: Double
        public var high: Double
    }

    public struct Estimates: Equatable, Sendable {
        public var overall: Effect
        /// By the slot's hour, in hour order.
        public var byHour: [(hour: Int, effect: Effect)]
        /// By reminders already shown that day (the last group holds that many or more), in order.
        public var byShownBefore: [(shownBefore: Int, effect: Effect)]
        /// nil: not enough pairs yet.
        public var decay: Decay?
        /// Randomised decision points and study days among them.
        public var points: Int
        public var days: Int

        public static func == (a: Estimates, b: Estimates) -> Bool {
            a.overall == b.overall && a.byHour.map(\.hour) == b.byHour.map(\.hour) && a.byHour.map(\.effect) == b.byHour.map(\.effect)
                && a.byShownBefore.map(\.shownBefore) == b.byShownBefore.map(\.shownBefore)
                && a.byShownBefore.map(\.effect) == b.byShownBefore.map(\.effect) && a.decay == b.decay && a.points == b.points
                && a.days == b.days
        }
    }

    /// Reminders already shown are grouped from this many on.
    public static let shownBeforeGroups = 5
    /// An interval is given only with at least this many points in each arm of a group.
    public static let minimumPerArm = 5

    /// Every estimate, its interval from `resamples` bootstrap resamples of whole study days (a fixed seed:
    /// the same record gives the same figures).
    public static func estimate(_ all: [Point], resamples: Int = 1000, seed: UInt64 = 0x5EED) -> Estimates {
        let points = all.filter { $0.withholdProbability > 0 && $0.withholdProbability < 1 }
        // Study days as ranges of `order`, the points sorted by day.
        let order = points.indices.sorted { points[$0].cluster < points[$1].cluster }
        var days: [Range<Int>] = []
        for (position, i) in order.enumerated() {
            if let last = days.last, points[order[last.lowerBound]].cluster == points[i].cluster {
                days[days.count - 1] = last.lowerBound..<(position + 1)
            } else {
                days.append(position..<(position + 1))
            }
        }
        let hours = Set(points.map { $0.minute / 60 }).sorted()
        // Groups by number: 0 overall, then each hour, then 0 … `shownBeforeGroups` reminders shown before.
        let groups = 1 + hours.count + shownBeforeGroups + 1
        // The decay's cells: one per slot and number shown before (up to `shownBeforeGroups`), numbered densely.
        var cellNumbers: [Int: Int] = [:]
        var cellKeys: [Int] = []
        struct Row {
            var groups: (Int, Int, Int)
            var cell: Int  // -1: in no cell of the decay
            var arm: Int  // 0 shown, 1 withheld
            var weight: Double
            var within60: Bool
            var beforeNext: Bool
        }
        let rows = order.map { i -> Row in
            let point = points[i]
            let before = min(max(point.shownBefore, 0), shownBeforeGroups)
            var cell = -1
            if point.shownBefore <= shownBeforeGroups {
                let key = point.minute * 64 + before
                cell = cellNumbers[key] ?? cellKeys.count
                if cell == cellKeys.count {
                    cellNumbers[key] = cell
                    cellKeys.append(key)
                }
            }
            return Row(
                groups: (0, 1 + hours.firstIndex(of: point.minute / 60)!, 1 + hours.count + before), cell: cell, arm: point.shown ? 0 : 1,
                weight: 1 / (point.shown ? 1 - point.withholdProbability : point.withholdProbability),
                within60: point.startedWithin60, beforeNext: point.startedBeforeNext)
        }
        // Each cell with one more shown before beside the cell with one fewer, at the same slot.
        let pairs = cellKeys.enumerated().compactMap { more, key -> (more: Int, less: Int)? in
            key % 64 > 0 ? cellNumbers[key - 1].map { (more, $0) } : nil
        }

        /// One resample's sums (`times[d]`: how often day d was drawn): each group's effect, and the decay.
        func sums(_ times: [Int]) -> (effects: [Effect], decay: Double?) {
            // Per group and arm (index group * 2 + arm); per decay cell and arm likewise.
            var n = [Int](repeating: 0, count: groups * 2)
            var w = [Double](repeating: 0, count: groups * 2)
            var y = [Double](repeating: 0, count: groups * 2)
            var cn = [Int](repeating: 0, count: cellKeys.count * 2)
            var cw = [Double](repeating: 0, count: cellKeys.count * 2)
            var cy = [Double](repeating: 0, count: cellKeys.count * 2)
            for (d, range) in days.enumerated() where times[d] > 0 {
                let t = times[d]
                let tw = Double(times[d])
                for row in rows[range] {
                    let weight = tw * row.weight
                    for g in [row.groups.0, row.groups.1, row.groups.2] {
                        n[g * 2 + row.arm] += t
                        w[g * 2 + row.arm] += weight
                        if row.within60 { y[g * 2 + row.arm] += weight }
                    }
                    if row.cell >= 0 {
                        cn[row.cell * 2 + row.arm] += t
                        cw[row.cell * 2 + row.arm] += weight
                        if row.beforeNext { cy[row.cell * 2 + row.arm] += weight }
                    }
                }
            }
            let effects = (0..<groups).map { g in
                let shown = w[g * 2] > 0 ? y[g * 2] / w[g * 2] : nil
                let withheld = w[g * 2 + 1] > 0 ? y[g * 2 + 1] / w[g * 2 + 1] : nil
                return Effect(
                    shown: n[g * 2], withheld: n[g * 2 + 1], startedShown: shown, startedWithheld: withheld,
                    difference: shown.flatMap { s in withheld.map { s - $0 } })
            }
            // The decay: each pair's effects weighted by the smaller arm of each side (their harmonic sum).
            var numerator = 0.0
            var denominator = 0.0
            for (more, less) in pairs {
                let sizeMore = min(cn[more * 2], cn[more * 2 + 1])
                let sizeLess = min(cn[less * 2], cn[less * 2 + 1])
                guard sizeMore > 0, sizeLess > 0 else { continue }
                let weight = 1 / (1 / Double(sizeMore) + 1 / Double(sizeLess))
                numerator += weight * (cy[more * 2] / cw[more * 2] - cy[more * 2 + 1] / cw[more * 2 + 1])
                denominator += weight * (cy[less * 2] / cw[less * 2] - cy[less * 2 + 1] / cw[less * 2 + 1])
            }
            // A pooled effect with one fewer that is nothing, or next to it, says nothing about the ratio.
            return (effects, denominator > 1e-6 ? numerator / denominator : nil)
        }

        var (result, decay) = sums([Int](repeating: 1, count: days.count))
        var random = SplitMix64(seed: seed)
        var resampled = [[Double]](repeating: [], count: groups)
        var decays: [Double] = []
        if !days.isEmpty {
            for _ in 0..<resamples {
                var times = [Int](repeating: 0, count: days.count)
                for _ in 0..<days.count { times[Int(random.next() % UInt64(days.count))] += 1 }
                let (effects, resampledDecay) = sums(times)
                for (g, effect) in effects.enumerated() { if let d = effect.difference { resampled[g].append(d) } }
                if let resampledDecay { decays.append(resampledDecay) }
            }
        }
        for g in 0..<groups where result[g].shown >= minimumPerArm && result[g].withheld >= minimumPerArm {
            // A resample that left an arm empty has no difference: the interval is of those that had one.
            let sorted = resampled[g].sorted()
            guard sorted.count >= resamples / 2 else { continue }
            result[g].low = quantile(sorted, 0.025)
            result[g].high = quantile(sorted, 0.975)
        }
        var decayEstimate: Decay?
        if let estimate = decay, decays.count >= resamples / 2 {
            let sorted = decays.sorted()
            decayEstimate = Decay(estimate: estimate, low: quantile(sorted, 0.025), high: quantile(sorted, 0.975))
        }
        decay = nil
        return Estimates(
            overall: result[0],
            byHour: hours.enumerated().compactMap { i, hour in
                let effect = result[1 + i]
                return effect.shown + effect.withheld > 0 ? (hour, effect) : nil
            },
            byShownBefore: (0...shownBeforeGroups).compactMap { k in
                let effect = result[1 + hours.count + k]
                return effect.shown + effect.withheld > 0 ? (k, effect) : nil
            },
            decay: decayEstimate, points: points.count, days: days.count)
    }

    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let position = q * Double(sorted.count - 1)
        let below = Int(position)
        let above = min(below + 1, sorted.count - 1)
        return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
    }
}

/// A small, fast generator with a fixed seed (Steele, Lea & Flood's SplitMix64): the same resamples on every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
