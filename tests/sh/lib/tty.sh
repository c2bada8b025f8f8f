# tests/sh/lib/tty.sh - sourced by the terminal tests: a program on a
# pseudo-terminal driven through tmux, as a user at a terminal would.
# The test defines fail() first, and sets TTY_COMMAND (what runs in the
# pane), TTY_COLS and TTY_ROWS (the pane's size), TTY_WAIT if it wants.  Each tty_start gets a
# tmux server of its own: a new session on a server still shutting down
# can fail.

tty_base=pme$$
tty_sock=

screen() {
	tmux -L "$tty_sock" capture-pane -p -t t 2>/dev/null
}

# wait_for TEXT: up to TTY_WAIT seconds (default 10) for TEXT on the
# screen; wait_re ERE: for a line matching ERE.
wait_for() {
	tty_wait F "$1" "'$1'"
}

wait_re() {
	tty_wait E "$1" "/$1/"
}

tty_wait() {
	local i
	for i in $(seq $((${TTY_WAIT:-10} * 10))); do
		screen | grep -q"$1" -- "$2" && return 0
		sleep 0.1
	done
	fail "never saw $3; the screen was:"
	screen | sed 's/^/    /' >&2
	return 1
}

# wait_gone TEXT: up to TTY_WAIT seconds for TEXT to leave the screen
# (a page redrawn in place).
wait_gone() {
	local i
	for i in $(seq $((${TTY_WAIT:-10} * 10))); do
		screen | grep -qF -- "$1" || return 0
		sleep 0.1
	done
	fail "'$1' stayed on the screen"
	return 1
}

# type_key KEY: one key, no Return (the pager's letters act at once).
type_key() {
	tmux -L "$tty_sock" send-keys -t t -l -- "$1"
}

type_line() {
	tmux -L "$tty_sock" send-keys -t t -l -- "$1"
	tmux -L "$tty_sock" send-keys -t t Enter
}

# tty_start DIR: TTY_COMMAND in DIR, then the pane stays open with its
# exit status shown as EXIT=N.
tty_start() {
	[ -n "$tty_sock" ] && tmux -L "$tty_sock" kill-server 2>/dev/null
	tty_sock=$tty_base-$(basename "$1")
	tmux -L "$tty_sock" new-session -d -s t -x "$TTY_COLS" -y "$TTY_ROWS" \
	    -c "$1" "$TTY_COMMAND; echo \"EXIT=\$?\"; sleep 60"
}

trap '[ -n "$tty_sock" ] && tmux -L "$tty_sock" kill-server 2>/dev/null' EXIT
