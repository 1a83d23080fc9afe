#!/usr/bin/env bash
# xfce4-notifyd under Xvfb (no Xfce session): it draws a button per action, "default" included. Answered by a
# real pointer click (xdotool) on the drawn "Start studying" and "Snooze" buttons.
SERVER_NAME=xfce4-notifyd
source "$(dirname "$0")/lib.sh"
Xvfb -displayfd 3 -nolisten tcp -screen 0 800x600x24 3>"$WORK/display" >"$WORK/xvfb.log" 2>&1 &
pids+=($!)
wait_for 10 "Xvfb display" test -s "$WORK/display"
export DISPLAY=:$(cat "$WORK/display")
/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd >"$WORK/xfce4-notifyd.log" 2>&1 &
server=$!; pids+=("$server")
wait_for_server "$server"
popup() { xdotool search --onlyvisible --pid "$server" | tail -1 | grep .; }

# click_button LEFT|RIGHT: the popup draws its buttons in one row at the bottom, in the order sent
# ("Start studying", "Snooze"): a real click at the middle of the left or right one.
click_button() {
    local window X Y WIDTH HEIGHT SCREEN
    window=$(popup)
    eval "$(xdotool getwindowgeometry --shell "$window")"
    local x=$((WIDTH / 4)); [[ $1 == RIGHT ]] && x=$((WIDTH * 3 / 4))
    say "popup ${WIDTH}x${HEIGHT} at $X,$Y; clicking $1 button at +$x+$((HEIGHT - 22))"
    xdotool mousemove --window "$window" "$x" $((HEIGHT - 22)) click 1
}

start_run start
check_actions "default=Start studying, later=Snooze 15m"
wait_for 5 "the popup on screen" popup
sleep 0.5   # drawn
eval "$(xdotool getwindowgeometry --shell "$(popup)")"
import -window root "$WORK/screen.png"
keep_shot "$WORK/screen.png" "$((WIDTH + 20))x$((HEIGHT + 20))+$((X - 10))+$((Y - 10))"
click_button LEFT
check_started default

# Still on screen 30 s after delivery (the reminder asks for no expiry), then Snooze. The pointer out of the way
# first: xfce4-notifyd does not expire a popup under it.
xdotool mousemove 0 599
start_run snooze
wait_for 5 "the popup on screen" popup
check_stays 30 popup
click_button RIGHT
check_snoozed 900000
