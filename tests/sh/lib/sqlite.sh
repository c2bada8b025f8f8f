# tests/sh/lib/sqlite.sh - sourced by tests and benchmarks that measure
# a large real program: the SQLite amalgamation from the npm package
# better-sqlite3.
#
#	fetch_sqlite DIR	fetches the package with npm into DIR and
#				leaves DIR/sqlite3.c and DIR/sqlite3.h; says
#				why and fails (1) when it cannot

fetch_sqlite() {
	local dir=$1 tgz src
	command -v npm >/dev/null || { echo "npm is not installed"; return 1; }
	mkdir -p "$dir/npm" || return 1
	if ! (cd "$dir/npm" && timeout 120 npm pack --silent \
	    better-sqlite3 >/dev/null 2>&1); then
		echo "npm cannot fetch better-sqlite3"
		return 1
	fi
	tgz=$(ls "$dir"/npm/better-sqlite3-*.tgz 2>/dev/null | head -n 1)
	[ -n "$tgz" ] && tar -xzf "$tgz" -C "$dir/npm" ||
	    { echo "cannot unpack '$tgz'"; return 1; }
	src=$(find "$dir/npm" -name sqlite3.c | head -n 1)
	[ -n "$src" ] || { echo "no sqlite3.c in better-sqlite3"; return 1; }
	cp "$src" "${src%.c}.h" "$dir/" || return 1
	rm -rf "$dir/npm"
}
