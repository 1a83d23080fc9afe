import Glibc
import PlannerCore
import PlannerStore

/// Claims what is due, delivers it through the sink with retries, records the outcome.
/// Delivery is at most once: the claim (`pending` -> `delivering`) commits before the sink runs, so a
/// crash after the claim loses that reminder rather than repeating it; the next run marks it failed.
struct Ticker {
    let database: PlannerDatabase
    let zone: Zone
    let policy: PlanPolicy
    let sink: DeliverySink
    let verbose: Bool
    /// The clock: the real one for a live ticker; `--now` plus elapsed time for `--once`.
    let now: () -> Instant
    let shouldStop: () -> Bool
    /// Sleeps until the instant; true when asked to stop meanwhile.
    let sleep: (Instant) -> Bool

    /// Delivers everything due now. Returns false when asked to stop.
    func deliverDue() throws(PlannerError) -> Bool {
        while true {
            let t = now()
            let (decision, claimed) = try database.claimDue(now: t, policy: policy)
            for (request, reason) in decision.missed {
                log("missed \(request.identifier) (due \(zone.rfc3339(request.fireAt))): \(reason)")
            }
            guard let claimed else { return true }
            if !(try deliver(claimed)) { return false }
        }
    }

    private func deliver(_ claimed: ClaimedRequest) throws(PlannerError) -> Bool {
        var attempt = 1
        while true {
            let error = sink.deliver(claimed, fireAt: zone.rfc3339(claimed.fireAt), shouldStop: shouldStop)
            let finishedAt = now()
            guard let error else {
                if !(try database.finishDelivery(claimed, at: finishedAt, attempts: attempt, sink: sink.name, error: nil)) {
                    log("delivered \(claimed.identifier), but its claim had already been recorded as failed (it took too long)")
                }
                if verbose { log("delivered \(claimed.identifier) \(finishedAt - claimed.fireAt) ms after its time") }
                return true
            }
            log("delivering \(claimed.identifier) through \(sink.name) failed (attempt \(attempt)): \(error)")
            if shouldStop() {
                try database.finishDelivery(claimed, at: finishedAt, attempts: attempt, sink: sink.name, error: error)
                return false
            }
            guard let retryAt = nextRetry(after: attempt, fireAt: claimed.fireAt, now: finishedAt, policy: policy) else {
                try database.finishDelivery(claimed, at: finishedAt, attempts: attempt, sink: sink.name, error: error)
                log("gave up on \(claimed.identifier): its grace period is over; recorded as failed")
                return true
            }
            if sleep(retryAt) {
                try database.finishDelivery(claimed, at: now(), attempts: attempt, sink: sink.name,
                                            error: error + "; the ticker was stopped before the next attempt")
                return false
            }
            attempt += 1
        }
    }

    func log(_ message: String) {
        var line = "planner tick: \(message)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}
