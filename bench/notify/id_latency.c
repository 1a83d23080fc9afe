/* Latency from spawning a notifier to the notification's id being known, as a caller that reads the
 * notifier's stdout sees it (the planner's ticker spawns notify-send and reads its pipe).
 *
 *   id_latency [--close] RUNS OUT.tsv LABEL ARGV... :: LABEL ARGV... [:: ...]
 *
 * Each of RUNS iterations runs every command once, in turn, the order reversed on odd iterations. Per run:
 * t0, posix_spawn with stdout on a pipe, read up to the first newline (the id: --print-id for
 * notify-send), t_id. Without --close: wait4 for the child (t_exit), then CloseNotification(id) outside
 * the timed window so the daemon's queue stays empty. With --close (for the forms that wait for an
 * action or a close): CloseNotification(id) at t_close, then wait4 (t_exit): the time for the waiting
 * notifier to see NotificationClosed and exit. wait4 gives the child's user+sys CPU and max RSS.
 * Writes one line per run: label run id_us exit_us cpu_us maxrss_kib, where exit_us is t_exit - t0
 * without --close and t_exit - t_close with it. Exits non-zero if a child fails, prints no id within
 * 10 s (notify-send 0.8.1 with actions and stdout on a pipe prints its id only when it exits) or does
 * not exit within 10 s; the child is killed then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

extern char **environ;

#define TIMEOUT_S 10  /* a run that prints no id or does not exit within this fails the whole run */

static void on_alarm(int sig) { (void)sig; }  /* only interrupts wait4 */

static uint64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int close_notification(sd_bus *bus, uint32_t id) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int r = sd_bus_call_method(bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                               "org.freedesktop.Notifications", "CloseNotification", &error, NULL, "u", id);
    if (r < 0) fprintf(stderr, "id_latency: CloseNotification(%u): %s\n", id, error.message ? error.message : strerror(-r));
    sd_bus_error_free(&error);
    return r;
}

struct command { const char *label; char **argv; };

int main(int argc, char **argv) {
    int close_mode = 0, a = 1;
    if (a < argc && strcmp(argv[a], "--close") == 0) { close_mode = 1; a++; }
    if (argc - a < 4) { fprintf(stderr, "usage: id_latency [--close] RUNS OUT.tsv LABEL ARGV... :: LABEL ARGV...\n"); return 2; }
    int runs = atoi(argv[a++]);
    FILE *out = fopen(argv[a++], "w");
    if (!out) { perror("id_latency: output"); return 1; }

    struct command cmds[8];
    int n = 0;
    while (a < argc && n < 8) {
        cmds[n].label = argv[a++];
        cmds[n].argv = &argv[a];
        while (a < argc && strcmp(argv[a], "::") != 0) a++;
        if (a < argc) argv[a++] = NULL;  /* end this command's argv at the separator */
        n++;
    }

    struct sigaction sa = { .sa_handler = on_alarm };  /* no SA_RESTART: wait4 returns EINTR */
    sigaction(SIGALRM, &sa, NULL);

    sd_bus *bus = NULL;
    int r = sd_bus_open_user(&bus);
    if (r < 0) { fprintf(stderr, "id_latency: session bus: %s\n", strerror(-r)); return 1; }

    for (int i = 0; i < runs; i++) {
        for (int k = 0; k < n; k++) {
            struct command *c = &cmds[(i % 2) ? n - 1 - k : k];
            int fds[2];
            if (pipe2(fds, O_CLOEXEC) < 0) { perror("pipe"); return 1; }
            posix_spawn_file_actions_t fa;
            posix_spawn_file_actions_init(&fa);
            posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
            pid_t pid;
            uint64_t t0 = now_us();
            r = posix_spawnp(&pid, c->argv[0], &fa, NULL, c->argv, environ);
            posix_spawn_file_actions_destroy(&fa);
            close(fds[1]);
            if (r != 0) { fprintf(stderr, "id_latency: spawn %s: %s\n", c->argv[0], strerror(r)); return 1; }
            char buf[256];
            size_t len = 0;
            while (len < sizeof buf - 1) {
                struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
                int ready = poll(&pfd, 1, TIMEOUT_S * 1000);
                if (ready < 0 && errno == EINTR) continue;
                if (ready == 0) {
                    fprintf(stderr, "id_latency: %s printed no id within %d s\n", c->label, TIMEOUT_S);
                    kill(pid, SIGKILL);
                    return 1;
                }
                ssize_t got = read(fds[0], buf + len, sizeof buf - 1 - len);
                if (got < 0 && errno == EINTR) continue;
                if (got <= 0) break;
                len += (size_t)got;
                if (memchr(buf, '\n', len)) break;
            }
            uint64_t t_id = now_us();
            buf[len] = 0;
            char *end;
            unsigned long id = strtoul(buf, &end, 10);
            if (end == buf || *end != '\n') {
                fprintf(stderr, "id_latency: %s printed no id (got \"%s\")\n", c->label, buf);
                return 1;
            }
            uint64_t t_close = 0;
            if (close_mode) {
                t_close = now_us();
                if (close_notification(bus, (uint32_t)id) < 0) return 1;
            }
            int status;
            struct rusage ru;
            alarm(TIMEOUT_S);
            while (wait4(pid, &status, 0, &ru) < 0) {
                if (errno != EINTR) { perror("wait4"); return 1; }
                if (now_us() - t_id >= TIMEOUT_S * 1000000u) {
                    fprintf(stderr, "id_latency: %s did not exit within %d s\n", c->label, TIMEOUT_S);
                    kill(pid, SIGKILL);
                    return 1;
                }
            }
            alarm(0);
            uint64_t t_exit = now_us();
            close(fds[0]);  /* anything printed after the id (an action key) is not needed */
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "id_latency: %s failed (status %d)\n", c->label, status);
                return 1;
            }
            if (!close_mode) close_notification(bus, (uint32_t)id);
            uint64_t cpu = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u
                           + (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
            fprintf(out, "%s\t%d\t%llu\t%llu\t%llu\t%ld\n", c->label, i, (unsigned long long)(t_id - t0),
                    (unsigned long long)(close_mode ? t_exit - t_close : t_exit - t0),
                    (unsigned long long)cpu, ru.ru_maxrss);
        }
    }
    fclose(out);
    sd_bus_flush_close_unref(bus);
    return 0;
}
