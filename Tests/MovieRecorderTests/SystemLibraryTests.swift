import CLinux
import Foundation
import Testing
@testable import MovieContainer
@testable import MoviePlatform
@testable import MovieCapture
@testable import MovieEncoding
@testable import MovieRecorder

/// The media libraries are opened when first needed: `movrec mux` starts without them, a
/// recording opens x264, and a library that cannot be opened is named with what to install.
@Suite struct SystemLibraryTests {
    @Test func everyMediaLibraryOpensOnThisMachine() {
        for library in SystemLibrary.allCases {
            #expect(library.load() == nil, "\(library.soname)")
            // The second call repeats the first's answer.
            #expect(library.load() == nil, "\(library.soname), again")
        }
    }

    /// The loader names the file it could not open, or the function the file lacks.
    @Test func aMissingLibraryOrFunctionIsNamed() {
        func open(_ soname: String, _ function: String) -> (status: Int32, message: String, found: Bool) {
            var functions: [UnsafeMutableRawPointer?] = [nil]
            var message = [CChar](repeating: 0, count: 512)
            let status = function.withCString { name in
                let names: [UnsafePointer<CChar>?] = [name]
                return CLinux_openLibrary(soname, names, &functions, 1, &message, UInt(message.count))
            }
            return (status, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), functions[0] != nil)
        }
        let absent = open("libmovrec-absent.so.9", "x264_encoder_encode")
        #expect(absent.status == -1)
        #expect(absent.message.contains("libmovrec-absent.so.9"), "\(absent.message)")
        let wrongLibrary = open("libc.so.6", "x264_encoder_encode")
        #expect(wrongLibrary.status == -1)
        #expect(wrongLibrary.message == "libc.so.6 has no function x264_encoder_encode", "\(wrongLibrary.message)")
        let present = open("libc.so.6", "getpid")
        #expect(present.status == 0 && present.found && present.message.isEmpty)
    }

    /// glibc's loader lists every shared object it opens (LD_DEBUG=files): a mux opens none of the
    /// media libraries, a recording opens x264 by `dlopen` and nothing else of them.
    @Test func movrecOpensOnlyWhatACommandNeeds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let movrec = try movrecPath()
        let mux = try run("/usr/bin/env", ["LD_DEBUG=files", movrec, "mux", directory.file("mux.mov"),
                                            "--video", fixture("testsrc-ipp.264"), "--fps", "30"])
        #expect(mux.status == 0, "\(mux.error.suffix(400))")
        #expect(mux.error.contains("file=libc.so.6"), "LD_DEBUG printed no list of the shared objects opened")
        for library in SystemLibrary.allCases {
            #expect(!mux.error.contains("file=\(library.soname)"), "movrec mux opened \(library.soname)")
        }
        let record = try run("/usr/bin/env", ["LD_DEBUG=files", movrec, "record", directory.file("record.mov"),
                                               "--video", "testsrc", "--size", "160x120", "--duration", "0.2", "--audio", "none"])
        #expect(record.status == 0, "\(record.error.suffix(400))")
        #expect(record.error.contains("file=\(SystemLibrary.x264.soname) [0];  dynamically loaded by"),
                "movrec record did not open \(SystemLibrary.x264.soname) itself")
        for library in SystemLibrary.allCases where library != .x264 {
            #expect(!record.error.contains("file=\(library.soname)"), "movrec record from the test pattern opened \(library.soname)")
        }
    }
}
