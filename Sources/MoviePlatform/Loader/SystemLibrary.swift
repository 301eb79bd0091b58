import MovieContainer
internal import CALSA
internal import CAVCodec
internal import CTurboJPEG
internal import CV4L2
internal import CX264
internal import CX265
internal import CYUV
internal import CSampleRate
internal import CHeif
internal import CMicroHTTPD

/// The media libraries this package calls, each opened the first time it is needed rather than
/// when the program starts.
///
/// A program linked with all of them would load their shared objects before `main` whether or not it
/// ever encodes or captures; `movrec mux`, `inspect` and `repair` never do (Benchmarks/README.md,
/// row 23, has what that costs). The C modules
/// forward each function to the library opened with `dlopen` (`CLINUX_LAZY_LIBRARY` in CLinux.h);
/// the places that start using a library call ``load()`` first, so a missing one is a typed error
/// naming the package to install instead of a failure at start.
package enum SystemLibrary: CaseIterable {
    case x264, x265, alsa, v4l2, v4lconvert, turboJPEG, avcodec, yuv, samplerate, heif, microhttpd

    /// The file `dlopen` is asked for.
    package var soname: String {
        switch self {
        case .x264: "libx264.so.\(CX264_build())"
        case .x265: "libx265.so.\(CX265_build())"
        case .alsa: "libasound.so.2"
        case .v4l2: "libv4l2.so.0"
        case .v4lconvert: "libv4lconvert.so.0"
        case .turboJPEG: "libturbojpeg.so.0"
        case .avcodec: "libavcodec.so.\(CAVCodec_codec_major())"
        case .yuv: "libyuv.so.0"
        case .samplerate: "libsamplerate.so.0"
        case .heif: "libheif.so.1"
        case .microhttpd: "libmicrohttpd.so.12"
        }
    }

    /// The Debian package that installs it.
    package var package: String {
        switch self {
        case .x264: "libx264-\(CX264_build())"
        case .x265: "libx265-\(CX265_build())"
        case .alsa: "libasound2"
        case .v4l2, .v4lconvert: "libv4l-0"
        case .turboJPEG: "libturbojpeg0"
        case .avcodec: "libavcodec\(CAVCodec_codec_major())"
        case .yuv: "libyuv0"
        case .samplerate: "libsamplerate0"
        case .heif: "libheif1"
        case .microhttpd: "libmicrohttpd12"
        }
    }

    /// Opens the library if it is not open yet (the first call tries; later calls repeat its
    /// answer). Returns nil when it is open, else what failed and what to install.
    package func load() -> String? {
        let failure: UnsafePointer<CChar>? = switch self {
        case .x264: CX264_load()
        case .x265: CX265_load()
        case .alsa: CALSA_load()
        case .v4l2: CV4L2_load()
        case .v4lconvert: CV4L2_loadConvert()
        case .turboJPEG: CTurboJPEG_load()
        case .avcodec: CAVCodec_load()
        case .yuv: CYUV_load()
        case .samplerate: CSampleRate_load()
        case .heif: CHeif_load()
        case .microhttpd: CMicroHTTPD_load()
        }
        return failure.map { "loading \(soname) failed (\(String(cString: $0))); install the \(package) package" }
    }
}
