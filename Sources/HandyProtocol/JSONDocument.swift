// FoundationEssentials, not Foundation: handyd links this module (see JSONLines.swift).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small JSON document (not a protocol line), decoded and encoded here so that the modules that
/// must not import Foundation (HandyCore, the daemon) can read and write one: a device's hand
/// profile (`HandProfile`, docs/HANDEDNESS.md "Per-device enrolment", read and written by HandySettings).
public enum JSONDocument {
    /// What was wrong with a document: the reason, with the field when the decoder names one.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// Decodes `T` from the document's bytes. Non-finite numbers are refused (JSON has none).
    public static func decode<T: Decodable>(_: T.Type, from bytes: some Collection<UInt8>) throws(Failure) -> T {
        let data = Data(bytes)
        guard String(validating: data, as: UTF8.self) != nil else { throw Failure("not valid UTF-8") }
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw Failure(JSONLines.shortDescription(error))
        }
    }

    /// The document as indented JSON with sorted keys, ending in a newline; nil when `value` holds
    /// a number JSON cannot carry (NaN, infinity).
    public static func encode<T: Encodable>(_ value: T) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return nil }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
