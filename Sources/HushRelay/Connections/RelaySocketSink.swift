import NIOCore

/// The hub's handle on a `RelaySocketHandler`: hops to the channel's event loop.
final class RelaySocketSink: SocketSink {
    private let eventLoop: any EventLoop
    private let handler: NIOLoopBound<RelaySocketHandler>

    init(eventLoop: any EventLoop, handler: NIOLoopBound<RelaySocketHandler>) {
        self.eventLoop = eventLoop
        self.handler = handler
    }

    func push(_ frame: String) {
        let handler = handler
        eventLoop.execute { handler.value.push(frame) }
    }

    func replaced() {
        let handler = handler
        eventLoop.execute { handler.value.close(.goingAway, reason: "replaced by a newer connection") }
    }
}
