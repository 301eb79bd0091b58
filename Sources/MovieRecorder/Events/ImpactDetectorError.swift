/// Why an ``ImpactDetector`` cannot start.
public struct ImpactDetectorError: Error, Sendable, CustomStringConvertible {
    /// What went wrong and what to do.
    public let description: String

    init(_ description: String) { self.description = description }
}
