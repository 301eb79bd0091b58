// device-probe: the smallest program that proves the device rig works.
//
// Run inside the VM by `Tests/DeviceRig/run-device-tests device-probe`, it checks that a
// statically linked Swift binary starts in the guest, that libv4l2 reaches the vivid driver and
// that libasound reaches the snd-aloop card. It prints one line per check and exits 0 only if
// the V4L2 and the ALSA checks both passed. The report is also written to /out/probe.txt (when
// /out exists) through the library's RandomAccessFile, so the runner's -o path is exercised too.
//
// Usage: device-probe [VIDEO_DEVICE [ALSA_CAPTURE_DEVICE]]
//        defaults: /dev/video0  hw:Loopback,1,0
import Glibc
import MovieRecorder
import MovieCapture
import MovieEncoding
import MovieContainer
internal import CRigDrivers

/// The lines printed so far, kept for /out/probe.txt.
final class Report {
    private(set) var lines: [String] = []

    func say(_ line: String) {
        print(line)
        lines.append(line)
    }
}

/// The text of a fixed-size C `char` array imported as a tuple, up to its first NUL.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// The names in /dev that start with "video", sorted.
func videoNodes() -> [String] {
    guard let dir = opendir("/dev") else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = cString(entry.pointee.d_name)
        if name.hasPrefix("video") { names.append("/dev/" + name) }
    }
    return names.sorted()
}

/// Opens the device through libv4l2 and asks for its capabilities.
func probeVideo(_ videoPath: String, _ report: Report) -> Bool {
    let nodes = videoNodes()
    report.say("video nodes: \(nodes.isEmpty ? "none" : nodes.joined(separator: " "))")
    let fd = CRig_v4l2_open(videoPath, O_RDWR)
    guard fd >= 0 else {
        report.say("FAIL v4l2_open(\(videoPath)): \(String(cString: strerror(errno)))")
        return false
    }
    defer { _ = v4l2_close(fd) }
    var capability = v4l2_capability()
    guard CRig_v4l2_ioctl(fd, CRig_VIDIOC_QUERYCAP(), &capability) == 0 else {
        report.say("FAIL VIDIOC_QUERYCAP on \(videoPath): \(String(cString: strerror(errno)))")
        return false
    }
    let capsHex = String(capability.device_caps, radix: 16)
    report.say("OK v4l2 \(videoPath): driver=\(cString(capability.driver)) card=\(cString(capability.card)) device_caps=0x\(capsHex)")
    let isCapture = capability.device_caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0
    if !isCapture { report.say("FAIL \(videoPath) is not a video capture device") }
    return isCapture
}

/// Opens the ALSA device for capture and closes it again.
func probeAudio(_ audioDevice: String, _ report: Report) -> Bool {
    var pcm: OpaquePointer?
    let status = snd_pcm_open(&pcm, audioDevice, SND_PCM_STREAM_CAPTURE, 0)
    guard status >= 0, let pcm else {
        report.say("FAIL snd_pcm_open(\(audioDevice), capture): \(String(cString: snd_strerror(status)))")
        return false
    }
    report.say("OK alsa \(audioDevice): opened for capture, state \(snd_pcm_state(pcm).rawValue), name \(String(cString: snd_pcm_name(pcm)))")
    snd_pcm_close(pcm)
    return true
}

let arguments = CommandLine.arguments
let report = Report()
let videoOK = probeVideo(arguments.count > 1 ? arguments[1] : "/dev/video0", report)
let audioOK = probeAudio(arguments.count > 2 ? arguments[2] : "hw:Loopback,1,0", report)
let passed = videoOK && audioOK
report.say(passed ? "PASS" : "FAIL")

// Best effort: the exit status is what counts, the file only proves that /out comes back.
if access("/out", F_OK) == 0 {
    do {
        let file = try MovieFileSink(path: "/out/probe.txt", overwrite: true)
        try file.write(Array((report.lines.joined(separator: "\n") + "\n").utf8), at: 0)
        try file.close()
    } catch {
        print("note: could not write /out/probe.txt: \(error)")
    }
}
exit(passed ? 0 : 1)
