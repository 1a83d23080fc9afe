import Testing
@testable import PlannerStore
@testable import PlannerTicker

/// Which actions a study reminder offers, by notification server (its GetServerInformation name).
@Suite struct NotifyActionTests {
    @Test func serversShowingTheDefaultActionGetOneStartStudying() {
        for server in ["dunst", "Xfce Notify Daemon"] {
            #expect(NotifySink.actionArguments(server: server, snooze: "15m")
                    == ["--action=default=Start studying", "--action=later=Snooze 15m"], "\(server)")
        }
        // makoctl menu lists the last action sent first.
        #expect(NotifySink.actionArguments(server: "mako", snooze: "15m")
                == ["--action=later=Snooze 15m", "--action=default=Start studying"])
    }

    @Test func serversThatDrawNoDefaultButtonGetAStartStudyingButton() {
        // GNOME Shell draws no button for "default"; an unknown or silent server is treated alike.
        for server in ["gnome-shell", "Plasma", nil] as [String?] {
            #expect(NotifySink.actionArguments(server: server, snooze: "5m")
                    == ["--action=default=Start studying", "--action=start=Start studying", "--action=later=Snooze 5m"])
        }
    }

    @Test func answerKeysMapToActions() {
        #expect(NotifySink.answer(forKey: "later") == .snooze)
        #expect(NotifySink.answer(forKey: "default") == .default)
        #expect(NotifySink.answer(forKey: "start") == .start)
        #expect(NotifySink.answer(forKey: "Snooze 5m") == nil)
    }

    @Test func theServerNameIsTheReplysFirstString() {
        let reply = """
            method return time=1795604364.468834 sender=:1.0 -> destination=:1.2 serial=4 reply_serial=2
               string "Xfce Notify Daemon"
               string "Xfce"
               string "0.7.3"
               string "1.2"

            """
        #expect(NotifySink.firstString(inReply: reply) == "Xfce Notify Daemon")
        #expect(NotifySink.firstString(inReply: "   string \"\"\n") == "")
        #expect(NotifySink.firstString(inReply: "Error org.freedesktop.DBus.Error.NoReply\n") == nil)
    }
}
