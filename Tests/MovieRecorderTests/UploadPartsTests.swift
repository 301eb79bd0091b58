import Testing
@testable import MovieNetwork

/// The upload queue's pure parts: keys, records, the journal's lines, the part plan, addressing.
struct UploadPartsTests {
    @Test func keysExpandEachFieldOnce() {
        let fields = ["name": "{date}.mov", "date": "2026-12-05", "prefix": "cams/"]
        #expect(ObjectKey.expand("{prefix}{date}/{name}", fields) == "cams/2026-12-05/{date}.mov")
        #expect(ObjectKey.expand("{unknown}/{name}", fields) == "{unknown}/{date}.mov")
        #expect(!ObjectKey.isUsable("a\tb.mov") && !ObjectKey.isUsable("a\nb.mov") && ObjectKey.isUsable("a b~.mov"))
    }

    @Test func recordsHoldTheFileAsItWas() throws {
        let record = UploadRecord(destination: "http://127.0.0.1:9000/b", key: "k/a.mov", stage: .begun(uploadID: "X1"), size: 42, modified: 7)
        let read = try #require(UploadRecord(encoded: record.encoded))
        #expect(read == record && !read.isDone)
        #expect(read.matches(destination: "http://127.0.0.1:9000/b", key: "k/a.mov", size: 42, modified: 7))
        #expect(!read.matches(destination: "http://127.0.0.1:9000/b", key: "k/a.mov", size: 42, modified: 8))
        #expect(UploadRecord(encoded: "v1\tdone\td\tk\t\"e\"") == nil && UploadRecord(encoded: "garbage") == nil)
    }

    @Test func aTornJournalLineIsIgnored() {
        let lines = Array("a.mov\tv2 first\nb.mov\tv2 b\na.mov\t\nc.mov\tv2 torn".utf8)
        let values = UploadJournal.parse(lines)
        #expect(values == ["b.mov": "v2 b"], "\(values)")
    }

    @Test func partsStayWithinS3sLimit() {
        var settings = UploadSettings()
        #expect(FileUpload.plan(8 << 20, settings: settings).count == 1)
        #expect(FileUpload.plan((8 << 20) + 1, settings: settings).map(\.count) == [8 << 20, 1])
        let huge: Int64 = 100 << 30  // 100 GiB: 12,800 parts of 8 MiB would be too many
        let parts = FileUpload.plan(huge, settings: settings)
        #expect(parts.count <= 10_000 && parts.last?.upperBound == huge && parts.first!.count % (1 << 20) == 0)
        settings.partSize = 16 << 20
        #expect(FileUpload.plan(40 << 20, settings: settings).count == 3)
    }

    @Test func addressingAndLoopback() throws {
        let aws = try UploadDestination("s3://fleet/cams", region: "eu-west-1")
        #expect(aws.url(forKey: "cams/a b.mov") == "https://fleet.s3.eu-west-1.amazonaws.com/cams/a%20b.mov")
        let dotted = try UploadDestination("s3://my.fleet/x")
        #expect(dotted.url(forKey: "x/a.mov") == "https://s3.us-east-1.amazonaws.com/my.fleet/x/a.mov")
        let minio = try UploadDestination("s3://fleet/", endpoint: "http://127.0.0.1:9000")
        #expect(minio.url(forKey: "a+b.mov", query: "uploads=") == "http://127.0.0.1:9000/fleet/a%2Bb.mov?uploads=")
        #expect(minio.plainHTTPRefusal == nil)
        #expect(try UploadDestination("s3://fleet/", endpoint: "http://127.evil.example").plainHTTPRefusal != nil)
        #expect(throws: UploadError.self) { try UploadDestination("s3://fleet/../x") }
    }
}
