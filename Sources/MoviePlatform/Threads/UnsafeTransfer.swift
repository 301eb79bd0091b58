/// A value handed from one thread to another that never uses it again.
package struct UnsafeTransfer<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
