#if canImport(Glibc)
import Glibc
#endif

/// Case e's reference: x264 alone given the live recording's frames the way a camera gives them.
///
/// `paced --input IN.y4m --fps F -- ENCODER ARGS…` starts the encoder with a pipe as its
/// standard input and writes it IN.y4m's frames one every 1/F s, on an absolute schedule, as the
/// test pattern reaches a live recording. Reports the encoder's CPU seconds alone (`childCPU`,
/// from `wait4`'s rusage: the pacing is not counted) and how late the last frame went out
/// (`lateSeconds`; an encoder slower than real time makes it grow).
func paced(_ arguments: [String]) throws {
    guard let separator = arguments.firstIndex(of: "--"), separator + 1 < arguments.count else {
        throw WorkerError("usage: paced --input IN.y4m --fps F -- ENCODER ARGS…")
    }
    let options = Options(Array(arguments[..<separator]))
    let command = Array(arguments[(separator + 1)...])
    let fps = try options.number("--fps", default: 30)
    let path = try options.required("--input")

    // The Y4M file, mapped: a header line, then "FRAME\n" and a 4:2:0 picture per frame.
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw WorkerError("cannot open \(path)") }
    var info = stat()
    fstat(fd, &info)
    let size = Int(info.st_size)
    guard size > 0, let base = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0), base != MAP_FAILED else {
        throw WorkerError("cannot map \(path)")
    }
    close(fd)
    let bytes = UnsafeRawBufferPointer(start: base, count: size)
    guard let headerEnd = bytes.firstIndex(of: 0x0A) else { throw WorkerError("\(path) has no Y4M header") }
    let header = String(decoding: bytes[..<headerEnd], as: UTF8.self).split(separator: " ")
    guard let width = header.first(where: { $0.hasPrefix("W") }).flatMap({ Int($0.dropFirst()) }),
          let height = header.first(where: { $0.hasPrefix("H") }).flatMap({ Int($0.dropFirst()) }) else {
        throw WorkerError("\(path): no W and H in the Y4M header")
    }
    let frameBytes = 6 + width * height * 3 / 2  // "FRAME\n" and the picture
    let frames = (size - headerEnd - 1) / frameBytes

    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { throw WorkerError("pipe failed: errno \(errno)") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
    posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
    let argv = command.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var child: pid_t = 0
    let status = posix_spawnp(&child, command[0], &actions, nil, argv, environ)
    guard status == 0 else { throw WorkerError("cannot start \(command[0]): \(String(cString: strerror(status)))") }
    close(pipeEnds[0])
    signal(SIGPIPE, SIG_IGN)

    func write(_ start: Int, _ count: Int) throws {
        var done = 0
        while done < count {
            let n = Glibc.write(pipeEnds[1], base + start + done, count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw WorkerError("\(command[0]) stopped reading: errno \(errno)") }
            done += n
        }
    }
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    let startNanoseconds = Int64(start.tv_sec) * 1_000_000_000 + Int64(start.tv_nsec)
    try write(0, headerEnd + 1)
    for frame in 0..<frames {
        let due = startNanoseconds + Int64(Double(frame) * 1e9 / fps)
        var deadline = timespec(tv_sec: Int(due / 1_000_000_000), tv_nsec: Int(due % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
        try write(headerEnd + 1 + frame * frameBytes, frameBytes)
    }
    var end = timespec()
    clock_gettime(CLOCK_MONOTONIC, &end)
    let late = Double(Int64(end.tv_sec) * 1_000_000_000 + Int64(end.tv_nsec) - startNanoseconds) / 1e9 - Double(frames - 1) / fps
    close(pipeEnds[1])
    var childStatus: Int32 = 0
    var usage = rusage()
    while wait4(child, &childStatus, 0, &usage) < 0 {
        guard errno == EINTR else { throw WorkerError("waiting for \(command[0]) failed: errno \(errno)") }
    }
    guard childStatus & 0x7f == 0, (childStatus >> 8) & 0xff == 0 else { throw WorkerError("\(command[0]) failed: status \(childStatus)") }
    munmap(base, size)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    report("frames", Double(frames))
    report("childCPU", seconds(usage.ru_utime) + seconds(usage.ru_stime))
    report("lateSeconds", late)
}
