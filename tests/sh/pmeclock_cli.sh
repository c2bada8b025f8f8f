#!/bin/bash
#
# pmeclock_cli.sh - pmeclock's command line: --help and --version, usage
# errors (2), a command not found (127) or not executable (126), an
# unwritable sample file (1, the command not run), default and
# extension-less output names.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "$PME_TOP/tests/fixtures/clock/common.sh"

run 0 "--help" --help
grep -q '^usage: pmeclock \[-gqvw\] \[-e event\[/period\]\[,...\]\] \[-F hz | -i interval\]$' \
    "$tmp/out" || fail "--help: no usage line: $(head -3 "$tmp/out")"
run 0 "--version" --version
grep -q '^pmeclock (pme) ' "$tmp/out" || fail "--version: $(cat "$tmp/out")"

for args in "-x true" "" "-F 0 true" "-F 200000 true" "-i 5us true" \
    "-i 10parsecs true" "-m dtrace true" "-o" "-j 51 true" "-j x true"; do
	# shellcheck disable=SC2086
	run 2 "usage error '$args'" $args
	[ -s "$tmp/err" ] || fail "usage error '$args': nothing said"
done

run 127 "not found" -o nf -- ./no-such-command
grep -q "^pmeclock: './no-such-command': command not found$" "$tmp/err" ||
    fail "not found: $(cat "$tmp/err")"
[ ! -e nf.PMS ] || fail "not found: a sample file was left"
printf 'not a program\n' >text && chmod 644 text
run 126 "not executable" -o ne -- ./text
grep -q "^pmeclock: './text': cannot execute: Permission denied$" \
    "$tmp/err" || fail "not executable: $(cat "$tmp/err")"

run 1 "unwritable output" -o "$tmp/no/such/dir/x" -- sh -c 'touch ran'
grep -q "^pmeclock: .*no/such/dir/x" "$tmp/err" ||
    fail "unwritable output: $(cat "$tmp/err")"
[ ! -e ran ] || fail "unwritable output: the command ran"

# Names: the seed's default, .PMS added to a bare name, others kept.
mkdir d && cd d || exit 1
run 0 "default name" -q -- ../spin cpu 50
[ -f PMEFILE.PMS ] || fail "default name: no PMEFILE.PMS"
run 0 "bare name" -q -o run1 -- ../spin cpu 50
[ -f run1.PMS ] || fail "bare name: no run1.PMS"
run 0 "name with extension" -q -o run2.samples -- ../spin cpu 50
[ -f run2.samples ] || fail "name with extension: no run2.samples"
# The command's own options are its own.
run 0 "command options" -q -o opts -- sh -c 'exit 0' -v
cd .. || exit 1

# -v says what it does; -q is silent.
run 0 "-v" -v -o v -- ./spin cpu 50
grep -q "^pmeclock: sampling './spin' (pid [0-9]*) every 10000us with the" \
    "$tmp/err" || fail "-v: $(cat "$tmp/err")"
run 0 "-q" -q -m timer -F 1000 -o q -- ./spin cpu 50
[ ! -s "$tmp/err" ] || fail "-q: said $(cat "$tmp/err")"

finish
