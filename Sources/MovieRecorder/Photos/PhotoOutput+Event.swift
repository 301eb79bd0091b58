import MovieContainer
import MoviePlatform
import MovieCapture
import MovieEncoding

extension PhotoOutput {
    /// What ``PhotoOutput/events`` reports, in request order.
    public enum Event: Hashable, Sendable {
        /// A photo's file is written: the final photo, or with deferred delivery its proxy
        /// (``PhotoResult/isProxy``).
        case didCapturePhoto(PhotoResult)
        /// A deferred photo's full-quality file replaced its proxy.
        case didFinishDeferredPhoto(PhotoResult)
        /// A photo failed after it was requested: the request's `capturePhoto` throws the same
        /// error.
        case didFailPhoto(uniqueID: Int64, path: String, error: PhotoError)
        /// A deferred photo's full-quality file could not be made: its proxy stays.
        case didFailDeferredPhoto(uniqueID: Int64, path: String, error: PhotoError)
    }
}
