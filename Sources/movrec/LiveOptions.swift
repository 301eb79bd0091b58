import MoviePlatform
import MovieRecorder
#if canImport(Glibc)
import Glibc
#endif

/// The live view options `movrec record` and `movrec live` share: where to serve it, the size of
/// its picture, an access token, and a directory to write HLS into with its files' mode.
struct LiveOptions {
    /// `--live HOST:PORT`: serve the live view there.
    var address: (host: String, port: Int)?
    /// `--live-size WxH`: the largest picture the stream carries.
    var size: (width: Int, height: Int)?
    /// The access token, required for an address other than loopback: from `--live-token-file
    /// PATH`, `MOVREC_LIVE_TOKEN`, or the deprecated `--live-token T`.
    var token: String?
    /// `--print-token`: the printed address carries the token.
    var printsToken = false
    /// What to say on standard error before starting: a token file made, a deprecated option.
    var notices: [String] = []
    /// `--hls-directory DIR`: write HLS there; `--hls-window N` segments (0 for an EVENT playlist).
    var hlsDirectory: String?
    var hlsWindow: Int?
    /// `--hls-mode MODE`: the HLS files' permission bits in octal (0600 unless given).
    var hlsMode: UInt32?

    var isRequested: Bool { address != nil || hlsDirectory != nil }

    /// Takes the live options off `args`.
    /// - Throws: `Arguments.UsageError` naming a bad value.
    init(taking args: inout Arguments, defaultAddress: Bool) throws {
        let liveText = try args.option("--live")
        let sizeText = try args.option("--live-size")
        let tokenText = try args.option("--live-token")
        let tokenFile = try args.option("--live-token-file")
        printsToken = args.flag("--print-token")
        hlsDirectory = try args.option("--hls-directory")
        let windowText = try args.option("--hls-window")
        let modeText = try args.option("--hls-mode")
        address = try (liveText ?? (defaultAddress ? "127.0.0.1:8080" : nil)).map(Self.address)
        size = try sizeText.map { text in
            do { return try RecordOptions.size(text) } catch { throw Arguments.UsageError(description: "--live-size \(text) is not WIDTHxHEIGHT, such as 640x360") }
        }
        hlsWindow = try windowText.map { text in
            guard let count = Int(text), count == 0 || count >= 3 else {
                throw Arguments.UsageError(description: "--hls-window \(text) is not 0 (an EVENT playlist) or a whole number of 3 or more")
            }
            return count
        }
        hlsMode = try modeText.map(Self.fileMode)
        if hlsMode != nil && hlsDirectory == nil {
            throw Arguments.UsageError(description: "--hls-mode needs --hls-directory")
        }
        if !isRequested && (size != nil || tokenText != nil || tokenFile != nil || printsToken || hlsWindow != nil) {
            throw Arguments.UsageError(description: "--live-size, --live-token-file, --print-token and --hls-window need --live or --hls-directory")
        }
        guard address != nil else {
            if tokenText != nil || tokenFile != nil || printsToken {
                throw Arguments.UsageError(description: "--live-token-file and --print-token need --live: only the server asks for the token")
            }
            return
        }
        try takeToken(option: tokenText, file: tokenFile, environment: getenv("MOVREC_LIVE_TOKEN").map { String(cString: $0) })
    }

    /// The token from the one place it is given: `--live-token-file` (made, private, when the
    /// file does not exist), `MOVREC_LIVE_TOKEN`, or `--live-token` (which every local user can
    /// read in /proc, so it is said to be deprecated). At least 16 characters.
    private mutating func takeToken(option: String?, file: String?, environment: String?) throws {
        if option != nil && file != nil {
            throw Arguments.UsageError(description: "--live-token and --live-token-file name two tokens; give one (--live-token-file)")
        }
        if let file {
            do {
                if let line = try SecretFile.firstLine(of: file) {
                    token = line
                } else {
                    let made = LiveViewServer.makeAccessToken()
                    try SecretFile.create(file, holding: made)
                    notices.append("movrec: wrote a new access token to \(file) (readable by this user only)")
                    token = made
                }
            } catch {
                throw Arguments.UsageError(description: "--live-token-file: \(error)")
            }
        } else if let option {
            notices.append("movrec: --live-token shows the token to every local user (in /proc); "
                           + "use --live-token-file PATH or MOVREC_LIVE_TOKEN instead")
            token = option
        } else {
            token = environment
        }
        if let token, token.count < LiveViewServer.minimumAccessTokenLength {
            let source = file.map { "the token in \($0)" } ?? (option != nil ? "--live-token" : "MOVREC_LIVE_TOKEN")
            throw Arguments.UsageError(description: "\(source) has \(token.count) characters; an access token needs at least "
                                       + "\(LiveViewServer.minimumAccessTokenLength) (--live-token-file PATH makes one when PATH does not exist)")
        }
    }

    /// `--hls-mode`'s octal permission bits, such as `0644`: within 0777, and not writable by
    /// every user (anyone could change the stream).
    static func fileMode(_ text: String) throws -> UInt32 {
        guard (1...4).contains(text.count), text.allSatisfy({ ("0"..."7").contains($0) }), let mode = UInt32(text, radix: 8), mode <= 0o777 else {
            throw Arguments.UsageError(description: "--hls-mode \(text) is not an octal file mode such as 0600 or 0644")
        }
        guard mode & 0o002 == 0 else {
            throw Arguments.UsageError(description: "--hls-mode \(text) would let every user change the HLS files; give one such as 0644")
        }
        return mode
    }

    /// `HOST:PORT`, `[IPv6]:PORT` or `PORT` (on 127.0.0.1).
    static func address(_ text: String) throws -> (host: String, port: Int) {
        let bad = Arguments.UsageError(description: "--live \(text) is not HOST:PORT, such as 127.0.0.1:8080")
        if let port = Int(text) { return ("127.0.0.1", try valid(port, bad)) }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { throw bad }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { host = "127.0.0.1" }
        guard !host.isEmpty else { throw bad }
        return (host, try valid(port, bad))
    }

    private static func valid(_ port: Int, _ error: Arguments.UsageError) throws -> Int {
        guard (0...65535).contains(port) else { throw error }
        return port
    }

    /// The stream's settings: the defaults, with `--live-size`.
    var settings: LiveStreamSettings {
        var settings = LiveStreamSettings()
        if let size {
            settings.maximumWidth = size.width
            settings.maximumHeight = size.height
        }
        return settings
    }
}

/// The live view of a running command: the output, its server and its HLS directory, with a
/// task that prints the directory's failure when it happens.
struct LiveView {
    let output: LiveStreamOutput
    let server: LiveViewServer?
    let directory: HLSDirectoryWriter?
    let directoryWatch: Task<Void, Never>?

    /// Adds a live stream output to `service` and starts serving it as `options` ask; prints
    /// the page's address.
    static func start(_ options: LiveOptions, service: CaptureService) async throws -> LiveView? {
        guard options.isRequested else { return nil }
        let output = LiveStreamOutput(settings: options.settings)
        try await service.addOutput(output)
        let server = try options.address.map { try LiveViewServer(output: output, host: $0.host, port: $0.port, accessToken: options.token) }
        let directory = try options.hlsDirectory.map {
            try HLSDirectoryWriter(output: output, directory: $0, windowSegments: options.hlsWindow == 0 ? nil : options.hlsWindow ?? 6,
                                   fileMode: options.hlsMode ?? 0o600)
        }
        for notice in options.notices { standardError(notice) }
        if let server { standardError("movrec: live view at \(options.printsToken ? server.url : server.urlWithoutToken)") }
        if let directory { standardError("movrec: HLS in \(directory.directory)/live.m3u8") }
        // The command goes on (the recording, the server); the failure is said as it happens.
        let watch = directory.map { directory in
            Task { for await error in directory.errors { standardError("movrec: \(error)") } }
        }
        return LiveView(output: output, server: server, directory: directory, directoryWatch: watch)
    }

    /// Stops serving and writing; a failure of the directory's is printed by then.
    func stop() async {
        await server?.stop()
        await directory?.stop()
        await directoryWatch?.value
    }
}
