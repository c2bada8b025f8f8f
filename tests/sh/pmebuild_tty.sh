#!/bin/bash
#
# pmebuild_tty.sh - pmebuild on a terminal, driven through tmux as a user
# would: the seed's file-name question, its prompts in each mode, an error
# typed and corrected, "***Bucket File created***", and a .PMD without END
# finished from the keyboard (the seed's GRAVEL run).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

set -u
top=${PME_TOP:?}
tmp=${TMPDIR:?}
pmebuild=${PMEBUILD:-$top/build/pmebuild}
fails=0
base=pme$$
sock=

command -v tmux >/dev/null || { echo "skipped: tmux is not installed"; exit 77; }

fail() {
	echo "pmebuild_tty: $*" >&2
	fails=$((fails + 1))
}

screen() {
	tmux -L "$sock" capture-pane -p -t t 2>/dev/null
}

# wait_for TEXT: up to 10 s for TEXT on the screen.
wait_for() {
	local i
	for i in $(seq 100); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	fail "never saw '$1'; the screen was:"
	screen | sed 's/^/    /' >&2
	return 1
}

type_line() {
	tmux -L "$sock" send-keys -t t -l -- "$1"
	tmux -L "$sock" send-keys -t t Enter
}

start() {	# DIR: runs pmebuild there, then keeps the pane open
	# A server of its own each time: a new session on a server that is
	# still shutting down can fail.
	[ -n "$sock" ] && tmux -L "$sock" kill-server 2>/dev/null
	sock=$base-$(basename "$1")
	tmux -L "$sock" new-session -d -s t -x 150 -y 50 -c "$1" \
	    "$pmebuild; echo \"EXIT=\$?\"; sleep 60"
}

trap '[ -n "$sock" ] && tmux -L "$sock" kill-server 2>/dev/null' EXIT

# The seed's first example: no .PMD, everything typed.
mkdir -p "$tmp/one" && cd "$tmp/one" || exit 1
start "$tmp/one"
wait_for "Do you wish to specify file names? (Yes or No):" && type_line N
wait_for "cannot open 'PMEFILE.PMD': No such file or directory; reading statements from the terminal"
wait_for "Enter DEFINE statement:" && type_line "DEFINE UNITS: PROGRAM, MODULE"
wait_for "Enter program unit spec:" && type_line "PROGRAM X"
type_line "MODULE A, 1000 - 10FF"
type_line "MODUL B"
wait_for "pmebuild: <terminal>:4: unknown unit kind 'MODUL'"
type_line "MODULE B, 1100 - 11FF"
type_line "DEFINE ADDRESSES"
wait_for "Enter address spec:" && type_line "DEFINE SAMPLING"
wait_for "Enter sampling spec:" && type_line "PROGRAM X BY MODULE"
type_line "END"
wait_for "***Bucket File created***"
wait_for "EXIT=0"
[ -s PMEFILE.PME ] || fail "first example: no PMEFILE.PME"

# Yes to the question: names asked for; GRAVEL's .PMD ends before END,
# so the rest comes from the keyboard.
mkdir -p "$tmp/two" && cd "$tmp/two" || exit 1
cat >gravel.pmd <<'EOF'
DEFINE UNITS: PROGRAM, PHASE, MODULE
PROGRAM GRAVEL
PHASE ONE
MODULE FEED, 100 - 1FF
PHASE TWO
MODULE CRUNCH, 200 - 2FF
MODULE CRUSH, 300 - 5FF
DEFINE ADDRESSES
MODULE CRUSH,,100
DEFINE SAMPLING
EOF
start "$tmp/two"
wait_for "Do you wish to specify file names? (Yes or No):" && type_line y
wait_for "Input program definition file [PMEFILE.PMD]:" &&
    type_line gravel.pmd
wait_for "Output bucket file [PMEFILE.PME]:" && type_line out
wait_for "Enter sampling spec:" && type_line "PHASE TWO BY MODULE"
type_line "END"
wait_for "***Bucket File created***"
wait_for "EXIT=0"
[ -s out.PME ] || fail "second example: no out.PME"
[ -e PMEFILE.PME ] && fail "second example: PMEFILE.PME written"

[ "$fails" = 0 ] || exit 1
exit 0
