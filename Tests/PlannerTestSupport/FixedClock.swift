import PlannerCore
import PlannerSystem

/// Local wall times in a plan's zone as instants, and a clock a test sets and moves by hand.
public struct TestTime: Sendable {
    public let zone: Zone

    public init(zone: Zone) { self.zone = zone }

    /// The zone the end-to-end tests and most plans use (no summer time): Asia/Seoul from the tz database.
    public static let seoul = TestTime(zone: try! SystemZone.named("Asia/Seoul"))

    /// `2026-11-23T12:30` (or with seconds, a fraction or an offset) in the zone.
    public func at(_ text: String) -> Instant { try! parseTime(text, in: zone) }
}

/// A clock that stands still until the test moves it: what "now" is for code under test.
public final class FixedClock: @unchecked Sendable {
    public var now: Instant

    public init(_ now: Instant) { self.now = now }

    public func advance(milliseconds: Int64) { now = now + milliseconds }

    /// As the `() -> Instant` the code under test asks.
    public var reading: () -> Instant { { [unowned self] in self.now } }
}
