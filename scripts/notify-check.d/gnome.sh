#!/usr/bin/env bash
# GNOME Shell 43 headless (its own Wayland compositor, a virtual monitor): it draws "Start studying" and
# "Snooze" buttons once the banner is expanded (no button for "default"). Answered by a real pointer: a
# Clutter virtual pointer device moves onto the banner (it expands) and clicks the button, through the
# shell's input handling like a mouse. Scripting the shell needs its unsafe mode (Eval, Screenshot), set by a
# three-line extension of this check.
SERVER_NAME=gnome-shell
source "$(dirname "$0")/lib.sh"
# The shell wants a system bus (logind, accounts...): a private one will do.
dbus-daemon --session --nofork --print-address=3 --address="unix:path=$XDG_RUNTIME_DIR/system-bus" 3>"$WORK/system-bus" &
pids+=($!)
wait_for 10 "a system bus" test -s "$WORK/system-bus"
export DBUS_SYSTEM_BUS_ADDRESS=$(head -1 "$WORK/system-bus")
ext=$HOME/.local/share/gnome-shell/extensions/unsafe@notify-check.planner
mkdir -p "$ext"
echo '{"uuid": "unsafe@notify-check.planner", "name": "notify-check: unsafe mode", "description": "Lets the check use Eval and Screenshot", "shell-version": ["43"]}' >"$ext/metadata.json"
cat >"$ext/extension.js" <<'JS'
function init() {
    return { enable() { global.context.unsafe_mode = true; }, disable() { global.context.unsafe_mode = false; } };
}
JS
# Left by a shell that did not stop cleanly: it would start with every extension off.
rm -f "$XDG_RUNTIME_DIR/gnome-shell-disable-extensions"
gnome-shell --headless --wayland --no-x11 --virtual-monitor 1280x800 >"$WORK/gnome-shell.log" 2>&1 &
pids+=($!)
# GNOME 43 answers org.freedesktop.Notifications from a helper the shell has the bus start.
wait_for_server --cmdline org.gnome.Shell.Notifications
shell() { bus org.gnome.Shell /org/gnome/Shell "$@"; }
# eval JS: the shell's Eval; prints the result (a JSON text) and fails when the script threw.
eval_js() {
    local reply
    reply=$(shell org.gnome.Shell.Eval "$1") || return 1
    [[ $reply == "(true, "* ]] || { echo "$reply" >&2; return 1; }
    echo "$reply"
}
shell org.gnome.Shell.Extensions.EnableExtension unsafe@notify-check.planner >/dev/null
wait_for 10 "unsafe mode" eval_js 'if (!global.context.unsafe_mode) throw new Error("not yet"); 1'
# Its own "System was put in unsafe mode" banner, and the overview the shell starts in, out of the way.
eval_js 'Main.overview.hide(); Main.messageTray.getSources().forEach(s => s.notifications.slice().forEach(n => n.destroy())); 1' >/dev/null
wait_for 10 "no banner on screen" eval_js 'if (Main.messageTray._banner) throw new Error("a banner"); 1'

# The planner's banner on screen; moving the virtual pointer onto it expands it.
BANNER='const banner = Main.messageTray._banner;
if (!banner || banner.notification.title !== "Time to study?") throw new Error("no planner banner");'
POINTER='const {Clutter, GLib, St} = imports.gi;
global._checkPointer ??= Clutter.get_default_backend().get_default_seat().create_virtual_device(Clutter.InputDeviceType.POINTER_DEVICE);
const pointer = global._checkPointer;
const centre = a => { const [x, y] = a.get_transformed_position(); const [w, h] = a.get_transformed_size(); return [x + w / 2, y + h / 2]; };'
hover_banner() { eval_js "$BANNER $POINTER pointer.notify_absolute_motion(GLib.get_monotonic_time(), ...centre(banner)); 1" >/dev/null; }
# A button of the banner by its label, drawn (mapped): "Start studying" or "Snooze 15m".
FIND='const find = (a, label) => (a instanceof St.Button && a.label === label && a.mapped) ? a
    : a.get_children().map(c => find(c, label)).find(b => b) ?? null;'
button_drawn() { eval_js "$BANNER $POINTER $FIND if (!find(banner, '$1')) throw new Error('no button'); 1" >/dev/null; }
click_button() {
    eval_js "$BANNER $POINTER $FIND const b = find(banner, '$1'); const t = GLib.get_monotonic_time();
        pointer.notify_absolute_motion(t, ...centre(b));
        pointer.notify_button(t + 10000, Clutter.BUTTON_PRIMARY, Clutter.ButtonState.PRESSED);
        pointer.notify_button(t + 60000, Clutter.BUTTON_PRIMARY, Clutter.ButtonState.RELEASED); 1" >/dev/null
    say "clicked \"$1\" with the virtual pointer"
}

start_run start
check_actions "default=Start studying, start=Start studying, later=Snooze 15m"
wait_for 10 "the planner's banner" eval_js "$BANNER 1"
hover_banner
wait_for 5 "the banner's buttons" button_drawn "Start studying"
button_drawn "Snooze 15m" || fail "no Snooze button"
sleep 0.5   # the expansion's animation
bus org.gnome.Shell /org/gnome/Shell/Screenshot org.gnome.Shell.Screenshot.Screenshot false false "$WORK/screen.png" >/dev/null
region=$(eval_js "$BANNER const [x, y] = banner.get_transformed_position(); const [w, h] = banner.get_transformed_size();
    \`\${Math.round(w) + 20}x\${Math.round(h) + 20}+\${Math.round(x) - 10}+\${Math.round(y) - 10}\`" | sed "s/^(true, '\"\(.*\)\"')$/\1/")
keep_shot "$WORK/screen.png" "$region"
click_button "Start studying"
check_started start

start_run snooze
wait_for 10 "the planner's banner" eval_js "$BANNER 1"
hover_banner
wait_for 5 "the banner's buttons" button_drawn "Snooze 15m"
sleep 0.5   # the expansion's animation: the buttons in their place
click_button "Snooze 15m"
check_snoozed 900000

# 3. Not answered, the user at the desk (the pointer moving, never on the banner): the banner goes after a few
# seconds and the reminder stays in the shell's notification list, its notify-send still waiting for the answer.
# GNOME Shell 43 ignores the no-expiry request (notificationDaemon.js never reads it); while nobody is at the desk
# the banner itself stays (messageTray.js hides it only if the user was active).
eval_js "$POINTER pointer.notify_absolute_motion(GLib.get_monotonic_time(), 20, 780); 1" >/dev/null
start_run tray
in_tray() {
    eval_js "$POINTER pointer.notify_absolute_motion(GLib.get_monotonic_time(), 20 + Math.random(), 780);
        if (Main.messageTray._banner) throw new Error('a banner');
        if (!Main.messageTray.getSources().some(s => s.notifications.some(n => n.title === 'Time to study?'))) throw new Error('not listed'); 1" >/dev/null
}
wait_for 15 "the banner gone and the reminder in the notification list" in_tray
pgrep -u "$(id -u)" -x notify-send >/dev/null || fail "the reminder's notify-send ended"
say "banner gone, reminder in the notification list $(tenths $(($(date +%s%3N) - $(sql "SELECT delivered_at_ms FROM request WHERE identifier = '$ID' AND state = 'delivered'")))) s after delivery, its notify-send waiting"
