import MovieContainer
import MoviePlatform
import MovieRecorder

/// The finished recordings in a directory and the directories in it, for `movrec upload`: a
/// movie whose movie atom is written (not one still being recorded, with fragments), an event
/// clip, a photo. Hidden files are skipped.
enum FinishedRecordings {
    /// The finished recordings among the files `including` takes (all by default), asked
    /// before a file is read.
    static func find(in directory: String, including: (String) -> Bool = { _ in true }) -> [FinishedRecordingFile] {
        var found: [FinishedRecordingFile] = []
        for name in (DirectoryEntries.names(in: directory) ?? []).sorted() where !name.hasPrefix(".") {
            let path = directory == "/" ? "/\(name)" : "\(directory)/\(name)"
            if DirectoryEntries.isDirectory(path) {
                found += (DirectoryEntries.names(in: path) ?? []).sorted().filter { !$0.hasPrefix(".") }.map { "\(path)/\($0)" }
                    .filter(including).compactMap(file(at:))
            } else if including(path), let file = file(at: path) {
                found.append(file)
            }
        }
        return found
    }

    static func file(at path: String) -> FinishedRecordingFile? {
        guard DirectoryEntries.regularFileSize(path) != nil else { return nil }
        let name = UploadStateStore.name(of: path).lowercased()
        if name.hasSuffix(".jpg") || name.hasSuffix(".jpeg") || name.hasSuffix(".heic") || name.hasSuffix(".heif") {
            return FinishedRecordingFile(path: path, kind: .photo)
        }
        guard name.hasSuffix(".mov") || name.hasSuffix(".mp4"),
              let info = (try? MovieInspection(path: path))?.info, !info.isFragmented else { return nil }
        return FinishedRecordingFile(path: path, kind: name.hasPrefix("event-") ? .eventClip : .movie)
    }
}
