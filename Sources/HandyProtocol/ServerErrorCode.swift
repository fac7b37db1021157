/// Error codes the daemon sends that are not about a client's line (those are
/// ``ProtocolError/Code``). Both end up in `{"type":"error","code":…}`; see docs/PROTOCOL.md.
public enum ServerErrorCode: String, Sendable, Hashable, CaseIterable {
    /// The daemon already serves its maximum number of clients; the connection is closed.
    case tooManyClients = "too-many-clients"
    /// The client read too slowly and its outbound queue passed the bound; the connection is closed.
    case clientTooSlow = "client-too-slow"
    /// A WebSocket client asked for raw touches, which the daemon sends to WebSocket clients only
    /// when started with `--websocket-touches`; the rest of the subscription applies.
    case touchesNotAllowed = "touches-not-allowed"
    /// A `subscribe` named a `form` the daemon does not know; the rest of the subscription applies
    /// and the form stays what it was.
    case unknownForm = "unknown-form"
}
