/// A small deterministic generator (SplitMix64) for property tests: the same steps for a seed on every
/// machine, so a failing seed can be replayed.
public struct SeededGenerator: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A whole number from 0 to n - 1 (`next() % n`: the draw the property tests' seeds were recorded with).
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// One of `options`, by `below`.
    public mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }
}
