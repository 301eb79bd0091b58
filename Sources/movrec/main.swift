import MovieContainer
import MovieCapture
import MovieEncoding
#if canImport(Glibc)
import Glibc
#endif
import MovieRecorder

/// The commands, in the order `movrec help` lists them, with their usage.
let commands: [(name: String, usage: String)] = [
    ("inspect", InspectCommand.usage), ("rotate", RotateCommand.usage), ("record", RecordCommand.usage),
    ("photo", PhotoCommand.usage), ("repair", RepairCommand.usage), ("devices", DevicesCommand.usage),
    ("controls", ControlsCommand.usage), ("mux", MuxCommand.usage), ("live", LiveCommand.usage), ("upload", UploadCommand.usage),
]

/// The whole help: every command's usage.
let usage = "usage: movrec COMMAND ...\n\ncommands:\n"
    + commands.map { $0.usage.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") }
        .joined(separator: "\n")
    + "\n\nEvery command takes --help (or -h). movrec --version prints the version.\n"
    + "exit status: 0 success, 1 failure (the message says why), 2 usage error\n"

func standardError(_ text: String) {
    let line = text + "\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}

let words = Array(CommandLine.arguments.dropFirst())
installSignalHandlers(cleanStop: ["record", "live", "upload"].contains(words.first ?? ""))
guard let command = words.first else {
    standardError("movrec: no command given\nSee 'movrec help'.")
    exit(2)
}
// `movrec --version`, and `--help` or `-h` anywhere after a command: its usage, exit 0.
if command == "--version" || command == "version" {
    print("movrec \(MovieRecorderVersion.current)")
    exit(0)
}
if let known = commands.first(where: { $0.name == command }),
   words.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
    print("usage: movrec " + known.usage)
    exit(0)
}
var args = Arguments(Array(words.dropFirst()))
do {
    let status: Int32
    switch command {
    case "inspect": status = try inspect(&args)
    case "rotate": status = try rotate(&args)
    case "mux": status = try mux(&args)
    case "record": status = try await record(args)
    case "live": status = try await live(args)
    case "devices": status = try devices(&args)
    case "controls": status = try controls(&args)
    case "photo": status = try await photo(args)
    case "repair": status = try repair(&args)
    case "upload": status = try await upload(args)
    case "help", "--help", "-h":
        status = try help(&args)
    default:
        throw Arguments.UsageError(description: "unknown command '\(command)'")
    }
    exit(status)
} catch let error as Arguments.UsageError {
    let known = commands.contains { $0.name == command }
    standardError("movrec: \(known ? command + ": " : "")\(error)\nSee 'movrec help\(known ? " " + command : "")'.")
    exit(2)
} catch {
    standardError("movrec: \(error)")
    exit(1)
}

/// `movrec help [COMMAND]`: the whole usage, or one command's.
func help(_ args: inout Arguments) throws -> Int32 {
    try args.finish(positionalCount: 0...1)
    guard let name = args.positional.first else {
        print(usage)
        return 0
    }
    guard let command = commands.first(where: { $0.name == name }) else {
        throw Arguments.UsageError(description: "no command '\(name)'; the commands are " + commands.map(\.name).joined(separator: ", "))
    }
    print("usage: movrec " + command.usage)
    return 0
}
