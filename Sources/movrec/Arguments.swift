import MovieContainer
import MovieCapture
import MovieEncoding
/// The command line after the subcommand: options with values, flags, and positional words.
struct Arguments {
    private var words: [String]
    private(set) var positional: [String] = []

    init(_ words: [String]) { self.words = words }

    /// A usage error: one line naming the bad argument, a pointer to `movrec help COMMAND`, exit code 2.
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// Removes `--name VALUE` (or `--name=VALUE`) and returns the value.
    mutating func option(_ name: String) throws -> String? {
        var found: String?
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == name {
                guard index + 1 < words.count else { throw UsageError(description: "\(name) needs a value") }
                found = words[index + 1]
                words.removeSubrange(index...index + 1)
            } else if word.hasPrefix(name + "=") {
                found = String(word.dropFirst(name.count + 1))
                words.remove(at: index)
            } else {
                index += 1
            }
        }
        return found
    }

    /// Removes every `--name VALUE` (or `--name=VALUE`) and returns the values in order.
    mutating func options(_ name: String) throws -> [String] {
        var values: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == name {
                guard index + 1 < words.count else { throw UsageError(description: "\(name) needs a value") }
                values.append(words[index + 1])
                words.removeSubrange(index...index + 1)
            } else if word.hasPrefix(name + "=") {
                values.append(String(word.dropFirst(name.count + 1)))
                words.remove(at: index)
            } else {
                index += 1
            }
        }
        return values
    }

    /// Removes `--name`, `--name=VALUE` or `--name VALUE` where VALUE is a word `isValue`
    /// accepts; returns nil when absent, `default` when given without a value.
    mutating func optionalValue(_ name: String, default defaultValue: String, isValue: (String) -> Bool) -> String? {
        var found: String?
        var index = 0
        while index < words.count {
            let word = words[index]
            if word == name {
                if index + 1 < words.count, isValue(words[index + 1]) {
                    found = words[index + 1]
                    words.removeSubrange(index...index + 1)
                } else {
                    found = defaultValue
                    words.remove(at: index)
                }
            } else if word.hasPrefix(name + "=") {
                found = String(word.dropFirst(name.count + 1))
                words.remove(at: index)
            } else {
                index += 1
            }
        }
        return found
    }

    /// Removes `--name` and returns whether it was there.
    mutating func flag(_ name: String) -> Bool {
        let before = words.count
        words.removeAll { $0 == name }
        return words.count != before
    }

    /// Ends parsing: whatever is left must be positional words, `count` of them. A word that
    /// starts with `-` is an option this command does not know, wherever it stands; after `--`
    /// every word is positional (a file named `-x`).
    mutating func finish(positionalCount: ClosedRange<Int>) throws {
        let end = words.firstIndex(of: "--") ?? words.endIndex
        if let unknown = words[..<end].first(where: { $0.hasPrefix("-") && $0.count > 1 }) {
            throw UsageError(description: "unknown option \(unknown)")
        }
        positional = Array(words[..<end] + words[min(end + 1, words.endIndex)...])
        guard positionalCount.contains(positional.count) else {
            throw UsageError(description: positional.count < positionalCount.lowerBound ? "missing file argument" : "unexpected argument \(positional.last!)")
        }
    }
}

/// A failure put in the command line's words (its options rather than the library's
/// parameters); exit code 1.
struct CommandError: Error, CustomStringConvertible {
    let description: String
}
