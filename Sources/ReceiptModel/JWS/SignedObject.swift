/// A JSON object Apple signed (a JWS payload, or an object inside one), kept whole: ``fields`` holds every member
/// in order, documented or not, and the typed accessors of the conforming type read the documented ones.
///
/// Apple keeps adding members. One it has not documented yet (or that this package does not know) is never an
/// error: it stays in ``fields`` and is listed by ``undocumentedMembers``.
public protocol SignedObject: Sendable, Hashable {
    /// The members, in order, as signed.
    var fields: JSONObject { get }
    /// The member names Apple documents for this object as of 2026, each read by a typed accessor.
    static var documentedMembers: [String] { get }
}

extension SignedObject {
    /// The members Apple does not document for this object (or added after this package), in order.
    public var undocumentedMembers: [String] {
        fields.members.map(\.key).filter { !Self.documentedMembers.contains($0) }
    }
}
