/// How long converted buffers were held for their conversion: from the moment a pooled picture
/// was ready for it (at once for a camera, which drops a frame rather than wait) until the buffer
/// went back to the driver (or the replay).
public struct ConversionStatistics: Hashable, Sendable {
    /// Buffers converted.
    public var count = 0
    /// The sum of the hold times, in nanoseconds.
    public var totalNanoseconds: UInt64 = 0
    /// The longest hold time, in nanoseconds.
    public var maximumNanoseconds: UInt64 = 0
    /// Buffers found damaged (counted as corrupt frames and left out).
    public var corruptCount = 0
    /// Why the latest damaged buffer was refused, such as "the JPEG is cut short".
    public var lastCorruption: String?

    /// The mean hold time in milliseconds (0 before the first buffer).
    public var meanMilliseconds: Double { count == 0 ? 0 : Double(totalNanoseconds) / Double(count) / 1e6 }

    mutating func add(_ nanoseconds: UInt64) {
        count += 1
        totalNanoseconds += nanoseconds
        maximumNanoseconds = max(maximumNanoseconds, nanoseconds)
    }
}
