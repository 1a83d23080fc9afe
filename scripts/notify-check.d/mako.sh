#!/usr/bin/env bash
# mako under a headless sway (pixman renderer, no input devices): it draws no buttons. Answered with
# `makoctl menu PICKER` (the actions by label, as dmenu or wofi would show them) and `makoctl invoke -n ID KEY`.
SERVER_NAME=mako
source "$(dirname "$0")/lib.sh"
printf 'output HEADLESS-1 resolution 800x600\n' >"$WORK/sway.conf"
WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman sway -c "$WORK/sway.conf" >"$WORK/sway.log" 2>&1 &
pids+=($!)
socket() { ls "$XDG_RUNTIME_DIR" | grep -m1 -x 'wayland-[0-9]*'; }
wait_for 10 "sway's Wayland socket" socket
export WAYLAND_DISPLAY=$(socket)
mako >"$WORK/mako.log" 2>&1 &
server=$!; pids+=("$server")
wait_for_server "$server"
shown() { makoctl list | jq -e '.data[0] | length == 1'; }

# 1. Start studying from makoctl's menu: a picker that keeps the labels offered and picks "Start studying".
start_run start
check_actions "later=Snooze 15m, default=Start studying"
wait_for 5 "the reminder on screen" shown
sleep 0.3
grim "$WORK/screen.png"
keep_shot "$WORK/screen.png" 320x110+480+0
cat >"$WORK/picker" <<SH
#!/bin/sh
cat > "$WORK/menu.txt"
echo "Start studying"
SH
chmod +x "$WORK/picker"
makoctl menu "$WORK/picker"
[[ $(cat "$WORK/menu.txt") == $'Start studying\nSnooze 15m' ]] || fail "makoctl menu offered: $(cat "$WORK/menu.txt")"
say "makoctl menu: $(tr '\n' '|' <"$WORK/menu.txt")"
check_started default

# 2. Still on screen 30 s after delivery (mako: the reminder asks for no expiry), then Snooze with makoctl invoke,
# by the notification's id.
start_run snooze
wait_for 5 "the reminder on screen" shown
check_stays 30 shown
id=$(makoctl list | jq -r '.data[0][0].id.data')
makoctl invoke -n "$id" later
check_snoozed 900000
