import NIOCore

/// Remembers that the server asked this connection to wind down (graceful
/// shutdown). The quiesce event can reach a connection while its WebSocket
/// upgrade is still under way, before `RelaySocketHandler` is there to see
/// it; the handler asks here when it is added, and closes at once.
final class QuiesceWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private(set) var quiesced = false

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { quiesced = true }
        context.fireUserInboundEventTriggered(event)
    }
}
