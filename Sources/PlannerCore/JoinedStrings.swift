/// `[String].joined(separator:)` for concrete arrays of strings. The standard library's is generic over
/// `Sequence` and not specialized into this binary: its first call in a process looks up associated-type
/// witnesses at run time (a few percent of `planner status`), paid by every command that prints a table or a
/// list. This overload is picked for every `[String]` (a concrete extension ranks above
/// a protocol's), and joins with one loop. `joined()` too: it is the standard library's `joined(separator: "")`
/// otherwise, with the same lookups (paid by `open` with a calendar folder, whose iCalendar lines are joined
/// so).
extension Array where Element == String {
    @inlinable
    public func joined() -> String { joined(separator: "") }

    @inlinable
    public func joined(separator: String) -> String {
        guard var result = first else { return "" }
        var capacity = result.utf8.count
        for item in dropFirst() { capacity += separator.utf8.count + item.utf8.count }
        result.reserveCapacity(capacity)
        for item in dropFirst() {
            result += separator
            result += item
        }
        return result
    }
}
