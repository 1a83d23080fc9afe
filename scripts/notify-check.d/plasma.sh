#!/usr/bin/env bash
# KDE Plasma 5.27's notification server (plasmashell, Debian's plasma-desktop without recommends) under Xvfb,
# with no KDE session around it. Like GNOME Shell it draws no button for "default" (a click on the popup), so
# it gets a "Start studying" button of its own (`start`) and "Snooze". Answered through Plasma's own D-Bus method
# org.kde.NotificationManager.InvokeAction (what KDE Connect uses to answer a notification from a phone): a
# pointer click cannot be aimed at the popup's QML buttons from here (xdotool sees no widget inside it).
SERVER_NAME=plasma
source "$(dirname "$0")/lib.sh"
Xvfb -displayfd 3 -nolisten tcp -screen 0 1024x768x24 3>"$WORK/display" >"$WORK/xvfb.log" 2>&1 &
pids+=($!)
wait_for 10 "Xvfb display" test -s "$WORK/display"
export DISPLAY=:$(cat "$WORK/display")
# What plasmashell activates on the bus (kded5, KScreen, the activity manager) needs the display too.
dbus-update-activation-environment DISPLAY XDG_RUNTIME_DIR
plasmashell >"$WORK/plasmashell.log" 2>&1 &
server=$!; pids+=("$server")
wait_for_server "$server"
# The id each Notify call got back (its reply's one uint32), for InvokeAction.
dbus-monitor --session "type='method_return',sender='org.freedesktop.Notifications'" >"$WORK/replies.txt" 2>&1 &
pids+=($!)
sleep 0.2
last_id() { awk '/^   uint32 / { id = $2 } END { print id }' "$WORK/replies.txt" | grep .; }
# On screen: the server has not closed it (closing ends the ticker's notify-send for it).
shown() { pgrep -u "$(id -u)" -x notify-send; }

# 1. Start studying.
start_run start
check_actions "default=Start studying, start=Start studying, later=Snooze 15m"
wait_for 5 "the reminder's id" last_id
sleep 1   # drawn
import -window root "$WORK/screen.png"
keep_shot "$WORK/screen.png" 440x150+584+548
gdbus call --session --dest org.freedesktop.Notifications --object-path /org/freedesktop/Notifications \
    --method org.kde.NotificationManager.InvokeAction "$(last_id)" start >/dev/null
check_started start

# 2. Still on screen 30 s after delivery (it asks for no expiry: Plasma's own default would hide the popup into
# its history after 5 s), then Snooze.
start_run snooze
wait_for 5 "the reminder on screen" shown
check_stays 30 shown
gdbus call --session --dest org.freedesktop.Notifications --object-path /org/freedesktop/Notifications \
    --method org.kde.NotificationManager.InvokeAction "$(last_id)" later >/dev/null
check_snoozed 900000
