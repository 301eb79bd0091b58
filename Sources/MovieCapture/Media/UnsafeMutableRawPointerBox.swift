import MovieContainer
import MoviePlatform
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A raw pointer that may cross threads: the memory it points to is handed over, never shared
/// for writing.
package struct UnsafeMutableRawPointerBox: @unchecked Sendable {
    package let pointer: UnsafeMutableRawPointer
    package init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}
