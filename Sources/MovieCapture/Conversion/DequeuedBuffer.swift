/// A camera buffer as the driver hands it over (`VIDIOC_DQBUF`), or as a replay of recorded
/// buffers hands over one of its own.
package struct DequeuedBuffer {
    /// The bytes the driver filled: `bytesused`, or the whole buffer when the driver said 0.
    package var bytes: UnsafeRawBufferPointer
    /// The driver's frame counter; a jump counts the frames in between as dropped.
    package var sequence: UInt32
    /// The capture time on ``MonotonicClock``, in nanoseconds.
    package var timestamp: UInt64
    /// The driver flagged the buffer as damaged (`V4L2_BUF_FLAG_ERROR`).
    package var isError = false
    /// The buffer as a DMA-BUF descriptor (`VIDIOC_EXPBUF`), or -1 when the driver exports none.
    package var exportDescriptor: Int32 = -1
    /// The whole buffer's length, which an importer of the DMA-BUF is told.
    package var length = 0

    package init(bytes: UnsafeRawBufferPointer, sequence: UInt32, timestamp: UInt64, isError: Bool = false,
                 exportDescriptor: Int32 = -1, length: Int = 0) {
        self.bytes = bytes
        self.sequence = sequence
        self.timestamp = timestamp
        self.isError = isError
        self.exportDescriptor = exportDescriptor
        self.length = length
    }
}
