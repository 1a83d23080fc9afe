#!/usr/bin/env bash
# dunst under Xvfb: no buttons; answered from its context menu (`dunstctl context`, which runs the configured
# dmenu) and `dunstctl action` (what a middle click does: the default action).
SERVER_NAME=dunst
source "$(dirname "$0")/lib.sh"
Xvfb -displayfd 3 -nolisten tcp -screen 0 800x600x24 3>"$WORK/display" >"$WORK/xvfb.log" 2>&1 &
pids+=($!)
wait_for 10 "Xvfb display" test -s "$WORK/display"
export DISPLAY=:$(cat "$WORK/display")
# The menu: a dmenu stand-in that keeps what dunst offered and picks the line holding $WORK/choice, as a
# person picks "Snooze" in dmenu.
cat >"$WORK/dmenu" <<SH
#!/bin/sh
cat > "$WORK/menu.tmp"
grep -m1 -F -- "\$(cat "$WORK/choice")" "$WORK/menu.tmp"
mv "$WORK/menu.tmp" "$WORK/menu.txt"
SH
chmod +x "$WORK/dmenu"
cat >"$WORK/dunstrc" <<CONF
[global]
    dmenu = $WORK/dmenu
CONF
dunst -config "$WORK/dunstrc" >"$WORK/dunst.log" 2>&1 &
pids+=($!)
wait_for_server $!
shown() { [[ $(dunstctl count displayed) -ge 1 ]]; }

# 1. Start studying: dunstctl action 0 (the default action of the first notification shown).
start_run start
check_actions "default=Start studying, later=Snooze 15m"
wait_for 5 "the reminder on screen" shown
sleep 0.3   # drawn
import -window root "$WORK/screen.png"
keep_shot "$WORK/screen.png" 330x72+470+46
dunstctl action 0
check_started default

# 2. Snooze, picked from dunst's context menu: "Start studying" once and first (dmenu preselects it).
start_run snooze 1m
check_actions "default=Start studying, later=Snooze 1m"
wait_for 5 "the reminder on screen" shown
echo "#Snooze" >"$WORK/choice"
dunstctl context
wait_for 5 "dunst's context menu" test -e "$WORK/menu.txt"
labels=$(sed 's/ (.*//' "$WORK/menu.txt")
[[ $labels == $'#Start studying\n#Snooze 1m' ]] || fail "the menu offered: $(cat "$WORK/menu.txt")"
say "context menu: $(echo $labels)"
check_snoozed 60000
# 3. While it is away (a minute), a reminder of a run of its own: still on screen 30 s after delivery (dunst's
# default timeout for normal urgency is 10 s; the reminder asks for none), then answered: Start studying.
snoozed=("$RUN" "$ID" "$TICKER"); TICKER=
start_run stay
check_stays 30 shown
dunstctl action 0
check_started default
kill "$TICKER"
RUN=${snoozed[0]} ID=${snoozed[1]} TICKER=${snoozed[2]}
# The snoozed reminder comes back a minute after Snooze, on screen again.
twice() { [[ $(sql "SELECT count(*) FROM request WHERE identifier = '$ID' AND state = 'delivered'") == 2 ]]; }
wait_for 75 "the snoozed reminder again" twice
wait_for 5 "the snoozed reminder on screen" shown
say "re-delivered $(sql "SELECT (max(delivered_at_ms) - (SELECT at_ms FROM notification_action)) / 1000.0 FROM request WHERE identifier = '$ID'") s after Snooze"
