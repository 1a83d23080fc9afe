import PlannerCommands
import Testing

@testable import PlannerTicker

/// `tick`'s sink, chosen from its options; the session bus is looked up in the context's environment.
@Suite struct TickSinkTests {
    let environment: (String) -> String? = { $0 == "DBUS_SESSION_BUS_ADDRESS" ? "tcp:host=bus.test,port=1" : nil }

    @Test func execWinsThenSinkThenTheAutomaticOne() {
        #expect(TickCommand.sink(.init(sink: .notify, exec: ["notify-me", "now"]), environment: environment) is ExecSink)
        #expect(TickCommand.sink(.init(sink: .stdout), environment: environment) is StdoutSink)
        #expect(TickCommand.sink(.init(), environment: environment) is AutoSink)
        #expect(TickCommand.sink(.init(sink: .notify), environment: environment) is NotifySink)
    }

    @Test func notifyTakesItsBusAndTextsFromTheContextAndOptions() throws {
        let options = TickCommand.Options(sink: .notify, urgency: "critical", icon: "planner", appName: "study")
        let notify = try #require(TickCommand.sink(options, environment: environment) as? NotifySink)
        #expect(notify.busAddress == "tcp:host=bus.test,port=1")
        #expect(notify.answerable)
        #expect(notify.urgency == "critical" && notify.icon == "planner" && notify.appName == "study")
        #expect(notify.environment("DBUS_SESSION_BUS_ADDRESS") == "tcp:host=bus.test,port=1")
        // --once (cron) cannot wait for an answer: no actions.
        var once = options
        once.once = true
        #expect((TickCommand.sink(once, environment: environment) as? NotifySink)?.answerable == false)
    }

    @Test func theAutomaticSinkFollowsTheContextsBus() throws {
        let auto = try #require(TickCommand.sink(.init(), environment: environment) as? AutoSink)
        #expect(auto.current() is NotifySink)
    }
}
