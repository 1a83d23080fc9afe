/* One desktop notification through a native D-Bus call (sd-bus from libsystemd), the counterpart of
 *
 *   notify-send --print-id --app-name=planner -A default=Open -A start="Start studying" \
 *               -A snooze="Snooze 15 min" -- "Time to study?" "body"
 *
 * It connects to the session bus ($DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus), calls
 * org.freedesktop.Notifications.Notify (app name, summary, body, actions as key/label pairs,
 * hints {urgency: byte 1}) and prints the returned id on its own line. With --wait it then waits, as
 * notify-send does when given actions, for ActionInvoked or NotificationClosed for that id: it prints
 * the action's key on ActionInvoked (as notify-send does) and exits 0 either way.
 *
 *   notify_sdbus [--wait] [--no-actions] [--expire-time=MS] [--timing] [--app-name=NAME] [SUMMARY [BODY]]
 *
 * --timing prints to stderr the microseconds from entering main to the bus being opened and to the id
 * being known. Build: gcc -O2 -o notify_sdbus notify_sdbus.c $(pkg-config --cflags --libs libsystemd)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-bus.h>

#define NOTIFY_NAME "org.freedesktop.Notifications"
#define NOTIFY_PATH "/org/freedesktop/Notifications"
#define NOTIFY_IFACE "org.freedesktop.Notifications"

static uint32_t notification_id;
static int done;

static uint64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* ActionInvoked(u id, s action_key) */
static int on_action(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)userdata; (void)ret_error;
    uint32_t id;
    const char *key;
    if (sd_bus_message_read(m, "us", &id, &key) < 0 || id != notification_id) return 0;
    printf("%s\n", key);
    fflush(stdout);
    done = 1;
    return 0;
}

/* NotificationClosed(u id, u reason) */
static int on_closed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)userdata; (void)ret_error;
    uint32_t id, reason;
    if (sd_bus_message_read(m, "uu", &id, &reason) < 0 || id != notification_id) return 0;
    done = 1;
    return 0;
}

static int fail(const char *what, int r) {
    fprintf(stderr, "notify_sdbus: %s: %s\n", what, strerror(-r));
    return 1;
}

int main(int argc, char **argv) {
    uint64_t t_start = now_us();
    int wait = 0, actions = 1, timing = 0;
    int32_t expire_ms = -1;
    const char *app_name = "planner", *summary = "Time to study?", *body = "body";
    int positional = 0, options = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options || a[0] != '-') {
            if (positional == 0) summary = a;
            else if (positional == 1) body = a;
            else { fprintf(stderr, "notify_sdbus: unexpected argument %s\n", a); return 2; }
            positional++;
        }
        else if (strcmp(a, "--") == 0) options = 0;
        else if (strcmp(a, "--wait") == 0) wait = 1;
        else if (strcmp(a, "--no-actions") == 0) actions = 0;
        else if (strcmp(a, "--timing") == 0) timing = 1;
        else if (strncmp(a, "--expire-time=", 14) == 0) expire_ms = (int32_t)strtol(a + 14, NULL, 10);
        else if (strncmp(a, "--app-name=", 11) == 0) app_name = a + 11;
        else { fprintf(stderr, "notify_sdbus: unknown option %s\n", a); return 2; }
    }

    sd_bus *bus = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_open_user(&bus);
    if (r < 0) return fail("cannot connect to the session bus", r);
    uint64_t t_open = now_us();

    if (wait) {
        /* Subscribe before calling Notify so that no signal for the new id can be missed. The sender
         * is left out of the rule (it is checked by id): sd-bus matches senders by unique name. */
        r = sd_bus_match_signal(bus, NULL, NULL, NOTIFY_PATH, NOTIFY_IFACE, "ActionInvoked", on_action, NULL);
        if (r < 0) return fail("cannot add match for ActionInvoked", r);
        r = sd_bus_match_signal(bus, NULL, NULL, NOTIFY_PATH, NOTIFY_IFACE, "NotificationClosed", on_closed, NULL);
        if (r < 0) return fail("cannot add match for NotificationClosed", r);
    }

    if (actions)
        r = sd_bus_call_method(bus, NOTIFY_NAME, NOTIFY_PATH, NOTIFY_IFACE, "Notify", &error, &reply,
                               "susssasa{sv}i", app_name, (uint32_t)0, "", summary, body,
                               6, "default", "Open", "start", "Start studying", "snooze", "Snooze 15 min",
                               1, "urgency", "y", (uint8_t)1, expire_ms);
    else
        r = sd_bus_call_method(bus, NOTIFY_NAME, NOTIFY_PATH, NOTIFY_IFACE, "Notify", &error, &reply,
                               "susssasa{sv}i", app_name, (uint32_t)0, "", summary, body,
                               0, 1, "urgency", "y", (uint8_t)1, expire_ms);
    if (r < 0) {
        fprintf(stderr, "notify_sdbus: Notify failed: %s\n", error.message ? error.message : strerror(-r));
        return 1;
    }
    r = sd_bus_message_read(reply, "u", &notification_id);
    if (r < 0) return fail("cannot read the reply of Notify", r);
    uint64_t t_id = now_us();
    printf("%" PRIu32 "\n", notification_id);
    fflush(stdout);
    if (timing)
        fprintf(stderr, "open_us=%" PRIu64 " id_us=%" PRIu64 "\n", t_open - t_start, t_id - t_start);
    sd_bus_message_unref(reply);

    while (wait && !done) {
        r = sd_bus_process(bus, NULL);
        if (r < 0) return fail("lost the session bus", r);
        if (r > 0) continue;
        r = sd_bus_wait(bus, UINT64_MAX);
        if (r < 0 && r != -EINTR) return fail("cannot wait on the session bus", r);
    }
    sd_bus_flush_close_unref(bus);
    return 0;
}
