#!/bin/bash
#
# pmebuild_tty.sh - pmebuild on a terminal, driven through tmux as a user
# would: the seed's file-name question, its prompts in each mode, an error
# typed and corrected, "***Bucket File created***", and a .PMD without END
# finished from the keyboard (the seed's GRAVEL run).
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

command -v tmux >/dev/null || { echo "skipped: tmux is not installed"; exit 77; }

TTY_COMMAND=$pmebuild TTY_COLS=150 TTY_ROWS=50
. "$top/tests/sh/lib/tty.sh"

# The seed's first example: no .PMD, everything typed.
mkdir -p "$tmp/one" && cd "$tmp/one" || exit 1
tty_start "$tmp/one"
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
tty_start "$tmp/two"
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

finish
