import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@_spi(DeviceRig) @testable import MovieEncoding

/// The hardware encoder's parts that need no hardware: what it makes of a driver's Annex B
/// buffers (from x264's and x265's real streams, cut as bcm2835-codec cuts them), the levels it
/// sets, and how a recording's settings choose it. The driver path itself is proven against
/// vicodec in the device rig (`m2m-*` cases).
@Suite struct HardwareEncoderTests {
    /// Each access unit as a driver's CAPTURE buffer: Annex B with 4-byte start codes, an access
    /// unit delimiter, and the parameter sets in front of the first and of every keyframe (as
    /// `REPEAT_SEQ_HEADER` asks). The samples must be what the movie writer gets from x264.
    @Test(arguments: ["testsrc-ipp.264", "testsrc-ipp.265", "testsrc-bframes.265"])
    func driverBuffersBecomeTheSamplesX264Gives(_ name: String) throws {
        let bytes = try RandomAccessFile.readAll(fixture(name))
        let stream = try AnnexBStream(annexB: bytes)
        let codec: AnnexBStream.Codec = name.hasSuffix(".264") ? .h264 : .hevc
        let sets = AnnexBStream.nalUnits(in: bytes).filter { codec.isParameterSet(codec.type($0.first!)) }.map(Array.init)
        let delimiter: [UInt8] = codec == .h264 ? [0x09, 0xF0] : [0x46, 0x01, 0x50]
        var bitstream = HardwareBitstream(codec: codec)
        for (index, unit) in stream.accessUnits.enumerated() {
            let headers = index == 0 || unit.isSync ? sets : []
            let pieces: [[UInt8]] = [delimiter] + headers + unit.nalUnits
            let buffer: [UInt8] = pieces.flatMap { [0, 0, 0, 1] + $0 }
            let converted = bitstream.convert(buffer)
            #expect(converted.data == unit.lengthPrefixed, "access unit \(index)")
            #expect(converted.isKeyframe == unit.isSync, "access unit \(index)")
            #expect(!converted.changesParameterSets, "access unit \(index): the same sets again are no change")
        }
        #expect(try bitstream.configuration() == stream.configuration)
        // A driver that changed its SPS mid-stream would no longer match the sample description.
        var changed = sets
        changed[codec == .h264 ? 0 : 1][changed[codec == .h264 ? 0 : 1].count - 1] ^= 0x01
        let changedBuffer: [UInt8] = changed.flatMap { [0, 0, 1] + $0 }
        #expect(bitstream.convert(changedBuffer).changesParameterSets)
    }

    @Test func aBufferOfHeadersAloneHasNoSample() throws {
        let bytes = try RandomAccessFile.readAll(fixture("testsrc-ipp.264"))
        var bitstream = HardwareBitstream(codec: .h264)
        #expect(try bitstream.configuration() == nil, "nothing seen yet")
        let sets = AnnexBStream.nalUnits(in: bytes).filter { [7, 8].contains($0.first! & 0x1F) }
        let buffer: [UInt8] = sets.flatMap { [0, 0, 0, 1] + Array($0) }
        let converted = bitstream.convert(buffer)
        #expect(converted.data.isEmpty && !converted.isKeyframe)
        #expect(try bitstream.configuration() != nil)
    }

    /// The level is always set (a Pi's default is too low for 1080p and it then encodes
    /// nothing), the lowest that holds the size and rate, never below 3.
    @Test func levelsHoldTheSizeAndRate() {
        let rate30 = FrameRate(frames: 30), rate60 = FrameRate(frames: 60)
        #expect(V4L2CodecControl.h264Level(width: 320, height: 240, rate: rate30) == 8, "3.0, the floor")
        #expect(V4L2CodecControl.h264Level(width: 1280, height: 720, rate: rate30) == 9, "3.1")
        #expect(V4L2CodecControl.h264Level(width: 1280, height: 720, rate: rate60) == 10, "3.2")
        #expect(V4L2CodecControl.h264Level(width: 1920, height: 1080, rate: rate30) == 11, "4.0")
        #expect(V4L2CodecControl.h264Level(width: 1920, height: 1080, rate: rate60) == 13, "4.2")
        #expect(V4L2CodecControl.h264Level(width: 3840, height: 2160, rate: rate30) == 15, "5.1")
        #expect(V4L2CodecControl.hevcLevel(width: 1920, height: 1080, rate: rate30) == 5, "4")
        #expect(V4L2CodecControl.hevcLevel(width: 1920, height: 1080, rate: rate60) == 6, "4.1")
        #expect(V4L2CodecControl.hevcLevel(width: 640, height: 480, rate: rate30) == 3, "3, the floor")
    }

    /// A bitrate maps to the encoder's controls (required: a driver without it cannot honour
    /// it); a profile it has no value for is refused before the device is opened.
    @Test func settingsBecomeControls() throws {
        var settings = VideoEncoderSettings()
        settings.rateControl = .bitrate(kilobitsPerSecond: 4000, maximumKilobitsPerSecond: 4000)
        settings.keyframeInterval = 30
        let format = VideoFormat(width: 1920, height: 1080, pixelFormat: .i420, frameRate: FrameRate(frames: 30))
        let controls = try V4L2VideoEncoder.controls(settings, format: format)
        #expect(controls.first { $0.id == V4L2CodecControl.bitrate }?.value == 4_000_000)
        #expect(controls.first { $0.id == V4L2CodecControl.bitrate }?.isRequired == true)
        #expect(controls.first { $0.id == V4L2CodecControl.bitrateMode }?.value == V4L2CodecControl.constantBitrate)
        #expect(controls.first { $0.id == V4L2CodecControl.gopSize }?.value == 30)
        #expect(controls.first { $0.id == V4L2CodecControl.h264Level }?.value == 11)
        #expect(controls.first { $0.id == V4L2CodecControl.bFrames }?.value == 0)
        settings.profile = "high10"
        #expect(throws: EncoderError.self) { try V4L2VideoEncoder.controls(settings, format: format) }
    }

    /// A node that is not an encoder, or none at all, is refused naming it; `.automatic` on a
    /// machine without a hardware encoder (this one) records with x264.
    @Test func theEncoderIsChosenOrRefusedByName() throws {
        let format = VideoFormat(width: 320, height: 240, pixelFormat: .i420, frameRate: FrameRate(frames: 30))
        for path in ["/dev/null", "/nonexistent/video9"] {
            var settings = VideoEncoderSettings()
            settings.encoder = .hardware(device: path)
            do {
                _ = try makeVideoEncoder(format: format, timescale: 600, settings: settings)
                Issue.record("\(path) was taken for an encoder")
            } catch let error as EncoderError {
                #expect(error.code == .deviceNotFound && error.message.contains(path) && error.message.contains("movrec devices"),
                        "\(error.code): \(error.message)")
            }
        }
        #expect(VideoEncoderDevice.devices().isEmpty, "this machine has no V4L2 encoder: \(VideoEncoderDevice.devices())")
        var settings = VideoEncoderSettings()
        settings.encoder = .automatic
        let (encoder, choice) = try chooseVideoEncoder(format: format, timescale: 600, settings: settings)
        defer { encoder.close() }
        #expect(encoder is H264Encoder)
        #expect(choice?.device == nil && choice?.encoder == "libx264", "\(String(describing: choice))")
        #expect(choice?.reason == "no hardware encoder takes H.264 at 320x240: no hardware encoder is present", "\(String(describing: choice))")
        settings.encoder = .software
        let software = try chooseVideoEncoder(format: format, timescale: 600, settings: settings)
        defer { software.encoder.close() }
        #expect(software.choice == nil, "only .automatic says what it chose")
    }

    /// `movrec record --encoder` with a node that is no encoder fails naming it; `--encoder auto`
    /// on a machine without one records with x264 and says why; `movrec devices` says there is none.
    @Test func movrecChoosesTheEncoder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let common = ["--video", "testsrc", "--size", "320x240", "--duration", "1", "--quiet"]
        let refused = try run(movrecPath(), ["record", directory.file("refused.mov"), "--encoder", "/dev/null"] + common)
        #expect(refused.status == 1 && refused.error.contains("/dev/null") && refused.error.contains("movrec devices"), "\(refused.error)")
        let auto = try run(movrecPath(), ["record", directory.file("auto.mov"), "--encoder", "auto"] + common)
        #expect(auto.status == 0, "\(auto.error)")
        #expect(auto.error.contains("movrec: encoding with libx264 (no hardware encoder takes H.264 at 320x240"), "\(auto.error)")
        let video = try #require(try ffprobeStreams(directory.file("auto.mov")).first { $0.codec_type == "video" })
        #expect(video.codec_name == "h264")
        let devices = try run(movrecPath(), ["devices"])
        #expect(devices.output.contains("encoders:\n  (none"), "\(devices.output)")
    }
}
