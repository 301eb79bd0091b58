import Foundation
import Testing
import MoviePlatform

/// The test scripts for uploads: moto's S3 server, the fault proxy and the bucket reader.
let uploadScripts: String = URL(fileURLWithPath: fixturesDirectory).deletingLastPathComponent().appendingPathComponent("Tests/Upload").path

/// Installs moto's server and boto3 into `python3` when they are missing (the tests' S3).
func requireMoto() throws {
    if (try? run("/usr/bin/env", ["python3", "-c", "import moto.server, boto3, werkzeug"]))?.status == 0 { return }
    let installed = try run("/usr/bin/env", ["python3", "-m", "pip", "install", "--quiet", "moto[server]>=5,<6", "boto3"])
    try #require(installed.status == 0, "moto[server] and boto3 are missing from python3 and pip could not install them: \(installed.error)")
}

/// moto's S3 server on 127.0.0.1, started for one test: its endpoint, keys and request log.
struct S3TestServer {
    let program: RunningProgram
    let endpoint: String
    let port: Int
    let accessKey: String
    let secretKey: String
    let log: String

    static func start(in directory: TemporaryDirectory, bucket: String = "recordings", auth: Bool = false) async throws -> S3TestServer {
        try requireMoto()
        let log = directory.file("s3-requests.jsonl")
        let program = try RunningProgram("/usr/bin/env", ["python3", uploadScripts + "/s3server.py", "--ignore-stdin", "--bucket", bucket,
                                                          "--log", log] + (auth ? ["--auth"] : []))
        let ready = await eventually(deadline: .seconds(60)) { program.output.contains("\n") || !program.process.isRunning }
        try #require(ready && program.output.contains("\n"), "moto's server did not start: \(program.error.suffix(500))")
        let line = try #require(program.output.split(separator: "\n").first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return S3TestServer(program: program, endpoint: json["endpoint"] as! String, port: json["port"] as! Int,
                            accessKey: json["access_key"] as! String, secretKey: json["secret_key"] as! String, log: log)
    }

    var environment: [String: String] { ["AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey] }

    /// The requests logged so far: method, path, query and status.
    func requests() -> [(method: String, path: String, query: [String: String], status: Int)] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            let query = (json["query"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
            return (json["method"] as? String ?? "", json["path"] as? String ?? "", query, json["status"] as? Int ?? 0)
        }
    }

    /// What the bucket holds, read back with boto3: each key's SHA-256, and unfinished uploads.
    func contents(_ bucket: String = "recordings", creating: Bool = false) throws -> (objects: [String: String], unfinished: [String]) {
        let listed = try run("/usr/bin/env", ["python3", uploadScripts + "/objects.py", endpoint, bucket] + (creating ? ["--create"] : []),
                             environment: environment)
        try #require(listed.status == 0, "objects.py: \(listed.error)")
        let json = try #require(try JSONSerialization.jsonObject(with: listed.outputData) as? [String: Any])
        return (json["objects"] as? [String: String] ?? [:], json["unfinished"] as? [String] ?? [])
    }

    func stop() { program.killIfRunning() }
}

/// The fault proxy (`Tests/Upload/faultproxy.py`) in front of a server.
struct FaultProxy {
    let program: RunningProgram
    let endpoint: String

    static func start(to server: S3TestServer, _ faults: [String]) async throws -> FaultProxy {
        let program = try RunningProgram("/usr/bin/env", ["python3", uploadScripts + "/faultproxy.py", "--ignore-stdin",
                                                          "--target", "127.0.0.1:\(server.port)"] + faults)
        let ready = await eventually(deadline: .seconds(30)) { program.output.contains("\n") || !program.process.isRunning }
        try #require(ready && program.output.contains("\n"), "the fault proxy did not start: \(program.error.suffix(500))")
        let line = try #require(program.output.split(separator: "\n").first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return FaultProxy(program: program, endpoint: "http://127.0.0.1:\(json["port"] as! Int)")
    }

    /// The faults it applied, one JSON line each on its standard error.
    var faults: [String] { program.error.split(separator: "\n").filter { $0.contains("\"fault\"") }.map(String.init) }

    func stop() { program.killIfRunning() }
}

/// The SHA-256 of each named file in `directory`, through `sha256sum` (independent of the
/// library's own digests).
func sha256OfFiles(in directory: String, matching keep: (String) -> Bool = { _ in true }) throws -> [String: String] {
    let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") && keep($0) }
    guard !names.isEmpty else { return [:] }
    let summed = try run("sha256sum", names.map { directory + "/" + $0 })
    var sums: [String: String] = [:]
    for line in summed.output.split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 1)
        if parts.count == 2 { sums[String(parts[1].drop { $0 == " " || $0 == "*" }.split(separator: "/").last!)] = String(parts[0]) }
    }
    return sums
}
