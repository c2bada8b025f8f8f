# tests/sh/lib/golden.sh - sourced by the golden tests: comparing an
# output with the expected file, or writing that file when PME_REGEN=1.
# The test defines fail() first and sets tmp (its TMPDIR).

# same EXPECTED ACTUAL WHAT: ACTUAL must equal EXPECTED (no EXPECTED file:
# must be empty); with PME_REGEN=1, EXPECTED is written instead (removed
# when ACTUAL is empty, but for a .his, which is kept even empty).
same() {
	if [ "${PME_REGEN:-0}" = 1 ]; then
		if [ -s "$2" ] || [ "${1##*.}" = his ]; then
			cp "$2" "$1"
		else
			rm -f "$1"
		fi
		return
	fi
	if [ -f "$1" ]; then
		diff -u "$1" "$2" >"$tmp/diff" || {
			fail "$3 differs:"; cat -A "$tmp/diff" >&2; }
	elif [ -s "$2" ]; then
		fail "$3 should be empty:"
		cat -A "$2" >&2
	fi
}
