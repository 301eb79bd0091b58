/// Read-only bytes that may cross threads: a camera buffer a frame holds.
package struct UnsafeRawBufferPointerBox: @unchecked Sendable {
    package let buffer: UnsafeRawBufferPointer
    package init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }
}
