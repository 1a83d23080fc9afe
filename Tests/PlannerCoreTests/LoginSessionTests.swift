import PlannerCore
import Testing

/// `LoginSession.decide`: which login a shell belongs to, from made-up /proc facts.
@Suite struct LoginSessionTests {
    typealias P = LoginSessionFacts.Process
    let me: UInt32 = 1000
    let login = P(pid: 500, start: 9000, uid: 1000)  // the login shell login or sshd started
    let sshd = P(pid: 400, start: 8000, uid: 0)
    let su = P(pid: 700, start: 9500, uid: 1000)  // setuid su keeps the caller's real uid
    let rootShell = P(pid: 650, start: 9400, uid: 0)

    func facts(
        _ ancestors: [P], hint: LoginSessionFacts.Hint = .none, audit: UInt32? = nil, logind: String? = nil,
        boot: String? = "b1"
    ) -> LoginSessionFacts {
        LoginSessionFacts(uid: me, bootID: boot, auditSession: audit, logindSession: logind, ancestors: ancestors, hint: hint)
    }

    func id(_ d: LoginSessionDecision) -> String? {
        if case .record(let id, _) = d { return id }
        return nil
    }

    @Test func anAuditSessionIsOneLoginWhateverRunsInside() throws {
        let first = try #require(id(LoginSession.decide(facts([login, sshd], audit: 3))))
        #expect(id(LoginSession.decide(facts([P(pid: 900, start: 1, uid: me)], audit: 3))) == first, "a tmux pane of it")
        #expect(id(LoginSession.decide(facts([login, sshd], audit: 4))) != first, "a new login")
        #expect(id(LoginSession.decide(facts([login, sshd], audit: 3, boot: "b2"))) != first, "the same number after a reboot")
        #expect(first.count == 32 && first.allSatisfy { $0.isHexDigit })
        #expect(id(LoginSession.decide(facts([], logind: "c2"))) != nil)
    }

    @Test func withoutOneTheOutermostProcessOfTheUsersOwnIsTheLogin() throws {
        let outer = try #require(id(LoginSession.decide(facts([login, sshd]))))
        let nested = P(pid: 510, start: 9100, uid: me)
        #expect(id(LoginSession.decide(facts([nested, login, sshd]))) == outer, "bash -l inside it")
        let suChild = P(pid: 710, start: 9600, uid: me)
        #expect(id(LoginSession.decide(facts([suChild, su, login, sshd]))) == outer, "su - to the same user")
        // A tmux pane: its server left the login; $PLANNER_LOGIN names the login shell.
        let pane = P(pid: 800, start: 9900, uid: me)
        let server = P(pid: 790, start: 9800, uid: me)
        #expect(id(LoginSession.decide(facts([pane, server], hint: .alive([login, sshd])))) == outer)
        #expect(id(LoginSession.decide(facts([pane, server]))) != outer, "a tmux pane without the hint is another login")
        #expect(LoginSession.decide(facts([pane, server], hint: .ended)) == .outlived, "a pane of a login that ended")
        // That login ended and its pid was taken by a process started after the tmux server (issue 29): not a
        // new login that cancels the rest of the day.
        let reused = P(pid: login.pid, start: 9950, uid: me)
        #expect(LoginSession.decide(facts([pane, server], hint: .alive([reused, sshd]))) == .outlived, "a pid reused")
        #expect(
            LoginSession.decide(facts([pane, server], hint: .alive([P(pid: login.pid, start: 100, uid: 1001)]))) == .outlived,
            "another user's process under that pid")
        #expect(id(LoginSession.decide(facts([login, sshd], hint: .alive([login, sshd])))) == outer, "the login shell itself")
        #expect(id(LoginSession.decide(facts([P(pid: 520, start: 9999, uid: me), sshd]))) != outer, "the next login")
    }

    @Test func aLoginStartedFromInsideARecordedOneNamesItAsCounted() {
        // root's su - to the user: the user's chain stops at root's shell, but the login above it is listed.
        let suChild = P(pid: 710, start: 9600, uid: me)
        let decision = LoginSession.decide(facts([suChild, P(pid: 705, start: 9550, uid: 0), rootShell, login, sshd]))
        guard case .record(let own, let counted) = decision else {
            Issue.record("\(decision)")
            return
        }
        #expect(own != id(LoginSession.decide(facts([login, sshd]))))
        #expect(counted.contains(id(LoginSession.decide(facts([login, sshd])))!))
    }

    @Test func noBootIDMeansEveryLoginCounts() {
        #expect(LoginSession.decide(facts([login], boot: nil)) == .unknown)
    }
}
