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
                if !(try record(claimed, at: finishedAt, attempts: attempt, error: nil)) {
                    log("delivered \(claimed.identifier), but its claim had already been recorded as failed (it took too long)")
                }
                if verbose { log("delivered \(claimed.identifier) \(finishedAt - claimed.fireAt) ms after its time") }
                return true
            }
            log("delivering \(claimed.identifier) through \(sink.name) failed (attempt \(attempt)): \(error)")
            if shouldStop() {
                try record(claimed, at: finishedAt, attempts: attempt, error: error)
                return false
            }
            guard let retryAt = nextRetry(after: attempt, fireAt: claimed.fireAt, now: finishedAt, policy: policy) else {
                try record(claimed, at: finishedAt, attempts: attempt, error: error)
                log("gave up on \(claimed.identifier): its grace period is over; recorded as failed")
                return true
            }
            if sleep(retryAt) {
                try record(claimed, at: now(), attempts: attempt,
                               error: error + "; the ticker was stopped before the next attempt")
                return false
            }
            if try database.appOpenedSinceClaim(claimed) {
                try database.abandonDelivery(claimed, at: now(), reason: "the app was opened before a retry succeeded")
                log("not retrying \(claimed.identifier): the app was opened meanwhile")
                return true
            }
            attempt += 1
        }
    }

    /// Records an outcome, retrying while another process holds the database (the reminder was
    /// shown: losing its record would later mark it failed). Gives up only when asked to stop.
    @discardableResult
    private func record(_ claimed: ClaimedRequest, at: Instant, attempts: Int, error: String?) throws(PlannerError) -> Bool {
        while true {
            do {
                return try database.finishDelivery(claimed, at: at, attempts: attempts, sink: sink.name, error: error)
            } catch {
                guard error.exitCode == 75, !shouldStop() else { throw error }
                log("the database is busy; recording \(claimed.identifier) again in a second")
                if sleep(now() + 1000) { throw error }
            }
        }
    }

    func log(_ message: String) {
        var line = "planner tick: \(message)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}
