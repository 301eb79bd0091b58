/// What converting one camera buffer gave.
package enum ConversionOutcome: Equatable {
    /// The picture is in the destination.
    case converted
    /// The buffer does not hold a usable picture (a truncated or damaged JPEG, a short buffer):
    /// the frame is counted as corrupt and skipped, as a buffer the driver flagged would be.
    case corrupt(String)
}
