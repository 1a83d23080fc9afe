/* The floor for the ticker's idle memory (bench/tick_memory.sh): a minimal C program that does what an
 * idle `planner tick` does — opens the database with SQLite in WAL mode, reads when the next request is
 * due, and sleeps in poll() on a timerfd (absolute, realtime), an inotify watch on the database's folder
 * and a signalfd — nothing else. Usage: tick_c DB */
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <libgen.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: tick_c DB\n"); return 64; }
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) { fprintf(stderr, "tick_c: open\n"); return 74; }
    sqlite3_busy_timeout(db, 250);
    sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL", NULL, NULL, NULL);
    sqlite3_stmt *next;
    sqlite3_prepare_v2(db, "SELECT min(fire_at_ms) FROM request WHERE state = 'pending'", -1, &next, NULL);
    long long due = sqlite3_step(next) == SQLITE_ROW ? sqlite3_column_int64(next, 0) : 0;
    sqlite3_reset(next);

    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigprocmask(SIG_BLOCK, &stop, NULL);
    int sfd = signalfd(-1, &stop, SFD_CLOEXEC);
    int tfd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
    struct itimerspec at = {.it_value = {.tv_sec = due / 1000, .tv_nsec = (due % 1000) * 1000000}};
    timerfd_settime(tfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &at, NULL);
    char folder[4096];
    snprintf(folder, sizeof folder, "%s", argv[1]);
    int ifd = inotify_init1(IN_CLOEXEC);
    inotify_add_watch(ifd, dirname(folder), IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM);
    fprintf(stderr, "tick_c: waiting\n");
    struct pollfd fds[3] = {{.fd = sfd, .events = POLLIN}, {.fd = tfd, .events = POLLIN}, {.fd = ifd, .events = POLLIN}};
    for (;;) {
        poll(fds, 3, -1);
        if (fds[0].revents) break;
        char buffer[4096];
        if (fds[2].revents) (void)!read(ifd, buffer, sizeof buffer);
        if (fds[1].revents) (void)!read(tfd, buffer, 8);
    }
    sqlite3_finalize(next);
    sqlite3_close(db);
    return 0;
}
