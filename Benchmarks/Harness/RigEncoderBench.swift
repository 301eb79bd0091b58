/// q. The hardware encoder's path in the device rig: what a 640x480 picture costs this process
/// on the V4L2 memory-to-memory path (vicodec) beside x264 `ultrafast` on the same camera in
/// the same guest, with the pictures copied into the encoder's buffers and imported as the
/// camera's DMA-BUFs, and from a YUYV camera converted at capture or lent unconverted. The rig's
/// case `m2m-cost` alternates them, three times; this boots it and reads its summary. vicodec encodes in software inside the ioctls, so the system time is
/// its encode, not the library's; the user time is the library's share (the copy in, the copy
/// out, the calls).
extension Harness {
    mutating func rigEncoderBenchmark() throws {
        print("\nq. Hardware encoder path in the device rig (vivid 640x480 I420 at 25 fps, vicodec's stateful encoder against "
              + "x264 ultrafast on the same camera; one VM run, three alternated rounds): CPU time per picture")
        let started = now()
        let samples = try rigCaseSamples("m2m-cost", keys: ["m2m_user_us", "m2m_system_us", "m2m_import_user_us",
                                                            "m2m_import_system_us", "x264_us", "m2m_yuyv_converted_thread_user_us",
                                                            "m2m_yuyv_lent_thread_user_us", "m2m_thread_user_us"])
        print("  rig run (building device-tests first if needed, booting, the case): \(fixed(now() - started, 0)) s")
        let user = samples["m2m_user_us"] ?? [], system = samples["m2m_system_us"] ?? [], x264 = samples["x264_us"] ?? []
        let importUser = samples["m2m_import_user_us"] ?? [], importSystem = samples["m2m_import_system_us"] ?? []
        let yuyvConverted = samples["m2m_yuyv_converted_thread_user_us"] ?? [], yuyvLent = samples["m2m_yuyv_lent_thread_user_us"] ?? []
        let i420Thread = samples["m2m_thread_user_us"] ?? []
        func row(_ name: String, _ values: [Double]) {
            print("  " + pad(name, 58) + "median \(padLeft(fixed(values.median, 0), 6)) µs (\(values.map { fixed($0, 0) }.joined(separator: ", ")))")
        }
        row("M2M copied, library's share (user: copies, calls)", user)
        row("M2M copied, system (vicodec's software encode)", system)
        row("M2M imported (DMA-BUF), library's share (user)", importUser)
        row("M2M imported (DMA-BUF), system", importSystem)
        row("x264 ultrafast, the encoding thread", x264)
        row("capture thread's user time, I420 copied", i420Thread)
        row("capture thread's user time, YUYV converted, copied", yuyvConverted)
        row("capture thread's user time, YUYV lent, imported", yuyvLent)
        let ratios = zip(user, x264).map { $0 / $1 }
        let importRatios = zip(importUser, x264).map { $0 / $1 }
        let importOverCopy = zip(importUser, user).map { $0 / $1 }
        func ratioLine(_ name: String, _ values: [Double]) {
            print("  \(name): median \(fixed(values.median, 3))× (per round \(values.map { fixed($0, 3) }.joined(separator: ", ")))")
        }
        ratioLine("library's share ÷ x264, copied", ratios)
        ratioLine("library's share ÷ x264, imported", importRatios)
        ratioLine("library's share imported ÷ copied", importOverCopy)
        let lentOverConverted = zip(yuyvLent, yuyvConverted).map { $0 / $1 }
        ratioLine("YUYV capture thread, lent and imported ÷ converted and copied", lentOverConverted)
        sections.append(("rigEncoder", .object([
            ("m2mUserMicroseconds", .array(user.map(JSON.number))), ("m2mSystemMicroseconds", .array(system.map(JSON.number))),
            ("m2mImportUserMicroseconds", .array(importUser.map(JSON.number))),
            ("m2mImportSystemMicroseconds", .array(importSystem.map(JSON.number))),
            ("x264UltrafastMicroseconds", .array(x264.map(JSON.number))), ("shareOverX264", .number(ratios.median)),
            ("importedShareOverX264", .number(importRatios.median)), ("importedOverCopied", .number(importOverCopy.median)),
            ("yuyvConvertedThreadUserMicroseconds", .array(yuyvConverted.map(JSON.number))),
            ("yuyvLentThreadUserMicroseconds", .array(yuyvLent.map(JSON.number))),
            ("yuyvLentOverConverted", .number(lentOverConverted.median)),
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
