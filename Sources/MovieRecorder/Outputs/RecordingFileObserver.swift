/// Something that takes a recording's finished files and may hold them back from retention:
/// an upload queue, which must not see a file deleted before it is stored.
///
/// Set one as ``MovieFileOutput/fileObserver``. Its methods are called on the recording's
/// writing thread and must return at once: note the file and do the work elsewhere.
public protocol RecordingFileObserver: AnyObject, Sendable {
    /// A file of the recording is final: a segment, an event clip or the last file.
    func recordingDidFinishFile(_ file: FinishedRecordingFile)
    /// Whether retention (``MovieFileOutput/maximumSegmentCount``,
    /// ``MovieFileOutput/maximumTotalSize``, ``EventClipSettings/maximumTotalSize``) may
    /// delete the file at `path` now. A held segment stays until the disk's floor forces it:
    /// free space within two of the largest segments of
    /// ``MovieFileOutput/minFreeDiskSpaceLimit`` (of a full disk, without a limit). A held
    /// event clip stays.
    func retentionMayDelete(_ path: String) -> Bool
    /// Retention is about to delete a held file because the disk's free space (`freeBytes`)
    /// is about to fall below its floor: the observer lets it go.
    func retentionWillDeleteHeldFile(_ path: String, freeBytes: UInt64)
}
