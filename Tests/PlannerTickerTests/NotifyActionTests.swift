import PlannerCore
import Testing

@testable import PlannerStore
@testable import PlannerTicker

/// Which actions a study reminder offers, by notification server (its GetServerInformation name).
@Suite struct NotifyActionTests {
    @Test func serversShowingTheDefaultActionGetOneStartStudying() {
        for server in ["dunst", "Xfce Notify Daemon"] {
            #expect(
                NotifySink.actionArguments(server: server, snooze: "15m")
                    == ["--action=default=Start studying", "--action=later=Snooze 15m"], "\(server)")
        }
        // makoctl menu lists the last action sent first.
        #expect(
            NotifySink.actionArguments(server: "mako", snooze: "15m")
                == ["--action=later=Snooze 15m", "--action=default=Start studying"])
    }

    @Test func serversThatDrawNoDefaultButtonGetAStartStudyingButton() {
        // GNOME Shell draws no button for "default"; an unknown or silent server is treated alike.
        for server in ["gnome-shell", "Plasma", nil] as [String?] {
            #expect(
                NotifySink.actionArguments(server: server, snooze: "5m")
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

    /// Every reminder asks for no expiry (`--expire-time=0`; without it notify-send sends -1, the server's
    /// default: dunst took the reminder and its answers away after 10 s). Study reminders of a live ticker,
    /// plain one-offs and `tick --once`'s reminders alike.
    @Test func everyReminderAsksForNoExpiry() {
        let sink = { (answerable: Bool) in
            NotifySink(appName: "planner", urgency: nil, icon: nil, busAddress: nil, answerable: answerable, environment: { _ in nil })
        }
        let slot = ClaimedRequest(
            rowID: 1, identifier: "Noti_Slot", fireAt: Instant(milliseconds: 0), title: "Time to study?",
            body: "A & B", kind: .slot)
        let oneoff = ClaimedRequest(
            rowID: 2, identifier: "Dentist", fireAt: Instant(milliseconds: 0), title: "-Dentist",
            body: "", kind: .oneoff, urgency: "low")
        #expect(
            sink(true).arguments(slot, replacing: 7, server: "dunst") == [
                "stdbuf", "-oL", "notify-send", "--app-name=planner", "--urgency=normal", "--expire-time=0", "--replace-id=7",
                "--print-id", "--action=default=Start studying", "--action=later=Snooze 15m", "--", "Time to study?", "A &amp; B",
            ])
        #expect(
            sink(true).arguments(oneoff, replacing: nil, server: nil)
                == ["notify-send", "--app-name=planner", "--urgency=low", "--expire-time=0", "--", "-Dentist", ""])
        #expect(
            sink(false).arguments(slot, replacing: nil, server: nil)
                == ["notify-send", "--app-name=planner", "--urgency=normal", "--expire-time=0", "--", "Time to study?", "A &amp; B"])
    }
}
