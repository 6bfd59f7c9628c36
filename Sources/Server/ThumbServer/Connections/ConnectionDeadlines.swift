import NIOCore

/// One connection's clock: how long its client may take to send a request's head, to go on
/// sending a body, to take what it is sent, and to stay idle between requests. Past any of them the
/// connection is closed and the reason counted. Confined to the connection's event loop; its
/// handlers (`RawInputObserver`, `ThumbnailFastPath`) report what they see.
///
/// A request costs two stores and a clock read here, not a timer: one check is scheduled at the
/// earliest deadline and, when it finds the deadline moved later, schedules itself again.
final class ConnectionDeadlines {
    private enum Phase {
        /// Before a request's first byte; `first`: the connection's first request (its head is
        /// timed from the connection's start).
        case waitingForRequest(first: Bool)
        case readingHead
        case readingBody
        case answering
    }

    private let limits: ConnectionLimits
    private let channel: any Channel
    private var phase = Phase.waitingForRequest(first: true)
    /// Requests whose head has arrived and whose response has not ended.
    private var unanswered = 0
    private var deadline: (at: NIODeadline, reason: ConnectionLimits.Reason)?
    private var sendDeadline: NIODeadline?
    private var check: (at: NIODeadline, task: Scheduled<Void>)?
    private var ended = false

    init(limits: ConnectionLimits, channel: any Channel) {
        self.limits = limits
        self.channel = channel
    }

    func connectionStarted() { arm(.header) }

    /// Bytes arrived (before any decoding).
    func bytesArrived() {
        switch phase {
        case .waitingForRequest(let first):
            phase = .readingHead
            if !first { arm(.header) }
        case .readingBody:
            arm(.body)
        case .readingHead, .answering:
            break
        }
    }

    /// A request's head has arrived; `expectsBody` when it announces one (a GET's end follows at once).
    func requestHeadReceived(expectsBody: Bool) {
        unanswered += 1
        if expectsBody {
            phase = .readingBody
            arm(.body)
        } else {
            phase = .answering
            deadline = nil
        }
    }

    /// The request has arrived whole.
    func requestEnded() {
        guard case .readingBody = phase else { return }
        phase = .answering
        deadline = nil
        if unanswered == 0 { idle() }  // answered before its body ended (an error, say)
    }

    func responseEnded() {
        unanswered = max(0, unanswered - 1)
        guard unanswered == 0, case .answering = phase else { return }
        idle()
    }

    private func idle() {
        phase = .waitingForRequest(first: false)
        arm(.keepAlive)
    }

    /// A client that stops reading leaves the connection unwritable; it has `send` to read again.
    func writabilityChanged(isWritable: Bool) {
        sendDeadline = isWritable ? nil : .now() + .init(limits.timeouts.send)
        if let sendDeadline { schedule(at: sendDeadline) }
    }

    func connectionEnded() {
        ended = true
        check?.task.cancel()
        check = nil
    }

    private func arm(_ reason: ConnectionLimits.Reason) {
        let at = NIODeadline.now() + .init(limits.timeout(reason))
        deadline = (at, reason)
        schedule(at: at)
    }

    private func schedule(at: NIODeadline) {
        guard !ended else { return }
        if let check, check.at <= at { return }
        check?.task.cancel()
        let loop = channel.eventLoop
        let this = NIOLoopBound(self, eventLoop: loop)
        check = (at, loop.scheduleTask(deadline: at) { this.value.checkNow() })
    }

    private func checkNow() {
        check = nil
        guard !ended else { return }
        let now = NIODeadline.now()
        if let sendDeadline, sendDeadline <= now { return expire(.send) }
        if let deadline, deadline.at <= now { return expire(deadline.reason) }
        let next = [deadline?.at, sendDeadline].compactMap { $0 }.min()
        if let next { schedule(at: next) }
    }

    private func expire(_ reason: ConnectionLimits.Reason) {
        ended = true
        limits.timedOut(reason)
        channel.close(promise: nil)
    }
}

/// First in the connection's pipeline, before HTTP decoding: tells the connection's deadlines that
/// bytes arrived and that the client stopped (or resumed) taking what it is sent, and stops reading
/// while the connection cannot be written to, so a client that pipelines requests without reading
/// the answers cannot make the daemon hold them all.
final class RawInputObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = Any
    typealias OutboundOut = Any

    private let deadlines: ConnectionDeadlines
    private var readHeld = false

    init(deadlines: ConnectionDeadlines) {
        self.deadlines = deadlines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadlines.bytesArrived()
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        guard context.channel.isWritable else {
            readHeld = true
            return
        }
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        deadlines.writabilityChanged(isWritable: writable)
        if writable, readHeld {
            readHeld = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadlines.connectionEnded()
        context.fireChannelInactive()
    }
}
