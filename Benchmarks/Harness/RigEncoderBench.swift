/// q. The hardware encoder's path in the device rig: what a 640x480 picture costs this process
/// on the V4L2 memory-to-memory path (vicodec) beside x264 `ultrafast` on the same camera in
/// the same guest. The rig's case `m2m-cost` alternates the two three times; this boots it and
/// reads its summary. vicodec encodes in software inside the ioctls, so the system time is its
/// encode, not the library's; the user time is the library's share (the copy in, the copy out,
/// the calls).
extension Harness {
    mutating func rigEncoderBenchmark() throws {
        print("\nq. Hardware encoder path in the device rig (vivid 640x480 I420 at 25 fps, vicodec's stateful encoder against "
              + "x264 ultrafast on the same camera; one VM run, three alternated rounds): CPU time per picture")
        let started = now()
        let samples = try rigCaseSamples("m2m-cost", keys: ["m2m_user_us", "m2m_system_us", "x264_us"])
        print("  rig run (building device-tests first if needed, booting, the case): \(fixed(now() - started, 0)) s")
        let user = samples["m2m_user_us"] ?? [], system = samples["m2m_system_us"] ?? [], x264 = samples["x264_us"] ?? []
        func row(_ name: String, _ values: [Double]) {
            print("  " + pad(name, 58) + "median \(padLeft(fixed(values.median, 0), 6)) µs (\(values.map { fixed($0, 0) }.joined(separator: ", ")))")
        }
        row("M2M, library's share (user time: copies, calls)", user)
        row("M2M, system time (vicodec's software encode inside it)", system)
        row("x264 ultrafast, the encoding thread", x264)
        let ratios = zip(user, x264).map { $0 / $1 }
        print("  library's share ÷ x264: median \(fixed(ratios.median, 3))× (per round \(ratios.map { fixed($0, 3) }.joined(separator: ", ")))")
        sections.append(("rigEncoder", .object([
            ("m2mUserMicroseconds", .array(user.map(JSON.number))), ("m2mSystemMicroseconds", .array(system.map(JSON.number))),
            ("x264UltrafastMicroseconds", .array(x264.map(JSON.number))), ("shareOverX264", .number(ratios.median)),
        ])))
    }

    /// Boots the rig once with the benchmark case `name` and reads the comma-separated lists
    /// under `keys` from its summary line.
    private func rigCaseSamples(_ name: String, keys: Set<String>) throws -> [String: [Double]] {
        let directory = "\(work)/rig-\(name)"
        _ = try run(["Tests/DeviceRig/run-device-tests", "-t", "900", "-o", directory, "device-tests", name], scratch: scratch)
        let summary = (try? readText(directory + "/summary.txt")) ?? ""
        guard let line = summary.split(separator: "\n").first(where: { $0.hasPrefix("CASE \(name) ") }) else {
            throw HarnessError("the rig's summary has no \(name) line: \(summary)")
        }
        var samples: [String: [Double]] = [:]
        for field in line.split(separator: " ") {
            let pair = field.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, keys.contains(String(pair[0])) else { continue }
            samples[String(pair[0])] = pair[1].split(separator: ",").compactMap { Double($0) }
        }
        return samples
    }
}
