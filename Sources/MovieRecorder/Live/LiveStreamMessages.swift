import MovieContainer

/// The event messages (`emsg`) the live stream carries beside its pictures.
enum LiveStreamMessages {
    /// The scheme of the orientation message: its data is JSON, `{"angle":90,"mirrored":false}`,
    /// the clockwise angle to turn the picture by and whether to flip it after, from the
    /// message's time on.
    static let orientationScheme = "urn:movierecorder:orientation"

    /// The `emsg` that says the pictures from `time` on are shown at `orientation`.
    static func orientation(_ orientation: VideoOrientation, timescale: UInt32, time: UInt64) -> [UInt8] {
        let json = "{\"angle\":\(orientation.rotationAngle),\"mirrored\":\(orientation.isMirrored)}"
        return EventMessageAtom(schemeIDURI: orientationScheme, value: "", timescale: timescale, presentationTime: time,
                                id: UInt32(truncatingIfNeeded: time), messageData: Array(json.utf8)).encoded
    }
}
