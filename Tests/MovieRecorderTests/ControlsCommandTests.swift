import Foundation
import Testing

/// `movrec controls` and `record --control` without a camera on this machine: what they refuse
/// and how (the device rig sets real controls).
@Suite struct ControlsCommandTests {
    @Test func controlsNeedACameraAndNameWhatIsWrong() throws {
        let movrec = try movrecPath()
        let dir = try TemporaryDirectory()
        defer { dir.cleanUp() }
        let notCamera = try run(movrec, ["record", dir.file("a.mov"), "--video", "testsrc", "--control", "brightness=1", "--duration", "0.1"])
        #expect(notCamera.status == 2 && notCamera.error.contains("--control needs a V4L2 camera"), "\(notCamera.error)")
        let missing = try run(movrec, ["controls", "/dev/no-such-camera"])
        #expect(missing.status == 1 && missing.error.contains("/dev/no-such-camera: opening failed"), "\(missing.error)")
        let usage = try run(movrec, ["controls"])
        #expect(usage.status == 2, "\(usage.error)")
        #expect(try run(movrec, ["help"]).output.contains("controls DEVICE [NAME=VALUE ...]"))
    }
}
