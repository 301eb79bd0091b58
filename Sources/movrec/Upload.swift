import MovieNetwork
import MovieRecorder
import MoviePlatform

/// `movrec upload`: every finished recording in a directory into object storage.
enum UploadCommand {
    static let usage = """
        upload DIR s3://BUCKET/PREFIX [--upload-endpoint URL] [--upload-rate BYTES[K|M]] [--upload-region R]
               [--upload-credentials FILE] [--upload-ca FILE] [--upload-allow-http] [--upload-part-size BYTES[M]]
               [--upload-timeout S] [--upload-key TEMPLATE] [--delete-after-upload] [--quiet]
            Upload every finished recording in DIR and the directories in it (a movie whose movie
            atom is written, an event clip, a photo) that is not stored at the destination yet,
            resuming uploads a killed run began, then exit: 0 when all are stored, 1 when some
            are not or changed while sent (each failure printed with the server's answer). Credentials come from
            AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, or a file in the AWS
            CLI's format (--upload-credentials, mode 600); the region from --upload-region or
            AWS_REGION (default us-east-1). Without --upload-endpoint the bucket is AWS's (HTTPS,
            virtual-host style); with one, such as http://127.0.0.1:9000 for MinIO, the bucket is
            named in the path. Plain HTTP only to loopback unless --upload-allow-http. Files up
            to 8 MiB go in one PUT, larger ones in parts of --upload-part-size (default 8M);
            --upload-rate caps the bytes per second; a request that moves nothing for
            --upload-timeout seconds (default 30) is retried. Keys follow --upload-key (default
            {prefix}{device}/{date}/{name}; also {kind}). Ctrl-C stops, leaving the rest for the
            next run.
        """
}

/// `movrec upload DIR s3://BUCKET/PREFIX …`
func upload(_ arguments: Arguments) async throws -> Int32 {
    var args = arguments
    let quiet = args.flag("--quiet")
    var options = try UploadOptions(taking: &args, takingURL: false)
    try args.finish(positionalCount: 2...2)
    options.url = args.positional[1]
    guard let plan = try options.resolved() else { return 2 }
    let directory = args.positional[0]
    guard DirectoryEntries.isDirectory(directory) else {
        throw Arguments.UsageError(description: "\(directory) is not a directory of recordings")
    }
    let queue = try plan.start()
    let printer = UploadReport.printEvents(of: queue)
    let count = queue.addFinishedRecordings(in: directory)
    if !quiet { standardError("movrec: upload: \(count) finished recordings in \(directory) to store at \(plan.destination)") }
    let status = await UploadReport.finish(queue, quiet: quiet)
    printer.cancel()
    return status.pendingFiles == 0 && status.waitingFiles == 0 && status.droppedFiles == 0 ? 0 : 1
}
