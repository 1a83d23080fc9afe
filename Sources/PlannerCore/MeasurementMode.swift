/// Measurement mode (`config set experiment on`): a micro-randomised trial on one person, as HeartSteps and
/// Drink Less ran theirs. Each study slot after the day's first is withheld with a fixed probability, so
/// that "what does a reminder at this hour, after this many, do for me" has an answer with a confidence
/// interval (`NudgeEffects`) instead of a guess.
///
/// The draw is a pure function of the slot's identifier and a seed every device derives the same (the id
/// of the event whose `experiment` value won), so every computer and the phone's calendar agree on which
/// slots are withheld without telling each other. A withheld slot stays a pending request (it holds its
/// place under the 64, and an open, a skip or a pause treats it like any other); at its time the claim
/// records it `withheld` instead of showing it, and the calendar folder carries no item for it.
public enum MeasurementMode {
    /// The chance that a slot after the day's first is withheld.
    public static let withholdProbability = 0.2

    /// The draw for one slot: a number in [0, 1) from SHA-256 of the seed and the identifier.
    public static func draw(identifier: String, seed: String) -> Double {
        let digest = SHA256.digest(Array("\(seed)\n\(identifier)".utf8))
        var bits: UInt64 = 0
        for byte in digest.prefix(8) { bits = bits << 8 | UInt64(byte) }
        // The top 53 bits: every value exactly representable, uniform on [0, 1).
        return Double(bits >> 11) / 9_007_199_254_740_992
    }

    /// Whether the slot `reading` is the first of its study day (the window's start): always shown, so that
    /// a withheld reminder is always one among others that day, as in the trials.
    public static func isFirstOfDay(_ reading: LocalDateTime, schedule: Schedule) -> Bool {
        // The usual-time schedule's day begins at its own first reminder.
        if schedule.usual != nil { return schedule.readings(on: schedule.studyDay(of: reading)).first == reading }
        return reading.hour * 60 + reading.minute == schedule.startMinute && reading.date == schedule.studyDay(of: reading)
    }

    /// The chance the slot `identifier` had of being withheld under `plan`: nil when measurement mode is off
    /// (or has no seed) or the request is not a study slot; 0 for the day's first slot.
    public static func withholdProbability(identifier: String, kind: RequestKind, plan: PlanSettings) -> Double? {
        guard plan.experiment, plan.experimentSeed != nil, kind == .slot, let reading = SlotIdentifier.parse(identifier) else { return nil }
        return isFirstOfDay(reading, schedule: plan.schedule) ? 0 : withholdProbability
    }

    /// Whether the slot `identifier` is withheld under `plan` (never when measurement mode is off).
    public static func withholds(identifier: String, kind: RequestKind, plan: PlanSettings) -> Bool {
        guard let p = withholdProbability(identifier: identifier, kind: kind, plan: plan), p > 0, let seed = plan.experimentSeed else {
            return false
        }
        return draw(identifier: identifier, seed: seed) < p
    }
}
