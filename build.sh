#!/bin/bash
#
# build.sh - builds pme, then runs its demo or its test suite.
#
#     ./build.sh demo  [CONFIGURE-ARGUMENT...]
#     ./build.sh check [CONFIGURE-ARGUMENT...]
#
# 1. Installs the Debian packages the build and the tests need, when one is
#    missing (apt-get, as root; otherwise it names them and stops).
# 2. Makes configure with autoconf when it is missing or older than
#    configure.ac, and runs it when config.mk is missing or older, or when
#    the arguments differ from the last ones given here (kept in
#    config.args).  Without arguments an existing configuration is kept.
# 3. make -j2, then make demo or make check.
# 4. check only, when CI=true or PME_SANITIZE=1 (and PME_SANITIZE is not 0):
#    builds and checks a copy of the tree again, configured with
#    --enable-sanitize-address --enable-sanitize-undefined; then the
#    command-line tests (golden, and the shell tests that use
#    PME_VALGRIND) under valgrind memcheck; then the fuzz targets (make
#    fuzz, PME_FUZZ_SECONDS each, default 60); and ends with one
#    "N passed, N failed" line totalling the four.
#
# Exit status: 0 when everything built and every test passed, 1 otherwise,
# 2 on a usage error.

set -u
export LC_ALL=C
prog=build.sh

usage() {
	echo "usage: ./build.sh demo|check [configure-argument ...]" >&2
	exit 2
}

[ $# -ge 1 ] || usage
action=$1
shift
case $action in
demo|check) ;;
-h|--help) echo "usage: ./build.sh demo|check [configure-argument ...]"
	exit 0 ;;
*) usage ;;
esac

cd "$(dirname "$0")" || exit 1
top=$(pwd)

# --- 1. packages -------------------------------------------------------------

missing=()
want() {	# want PACKAGE PRESENT: PRESENT is a command that succeeds if so
	local pkg=$1
	shift
	"$@" >/dev/null 2>&1 || missing+=("$pkg")
}
compiler=${CC:-gcc}
compiler=${compiler%% *}
case $compiler in
clang*)	want clang command -v "$compiler" ;;
*)	want gcc command -v "$compiler" ;;
esac
want libc6-dev test -f /usr/include/stdio.h
want make command -v make
want autoconf command -v autoconf
want binutils command -v objdump
want mandoc command -v mandoc
want valgrind command -v valgrind
want libelf-dev test -f /usr/include/libelf.h
want libdw-dev test -f /usr/include/elfutils/libdwfl.h
want libunwind-dev sh -c 'ls /usr/include/libunwind.h /usr/include/*/libunwind.h 2>/dev/null | grep -q .'
want libdwarf-dev test -f /usr/include/libdwarf/libdwarf.h
want zlib1g-dev test -f /usr/include/zlib.h
want libcapstone-dev test -f /usr/include/capstone/capstone.h
want libiberty-dev test -f /usr/include/libiberty/demangle.h
if [ "$action" = check ]; then
	# What the tests drive or compare with: a terminal (tmux), the
	# PostScript renderer, clang-built fixtures and perf as a peer;
	# the engines pmemerge's recipes run on: GNU parallel, and a
	# one-node Slurm cluster (slurm-wlm, munge: about 6 MB).
	want tmux command -v tmux
	want strace command -v strace
	want ghostscript command -v gs
	want clang command -v clang
	want g++ command -v g++
	want linux-perf command -v perf
	want parallel sh -c 'parallel --version | grep -q "GNU parallel"'
	want slurm-wlm test -x /usr/sbin/slurmctld
	want munge test -x /usr/sbin/munged
	# The readers of pmehisto's exports: xmllint and rsvg-convert
	# (the flame graph), go tool pprof (the pprof profile).
	want libxml2-utils command -v xmllint
	want librsvg2-bin command -v rsvg-convert
	want golang-go command -v go
	# The heap's peers (pmeclock -e alloc): heaptrack, and Debian's
	# sqlite3 as a real program to record.
	want heaptrack command -v heaptrack
	want sqlite3 command -v sqlite3
	# pmetrace's qemu engine runs programs under QEMU's user-mode
	# emulator.
	want qemu-user command -v qemu-x86_64
fi

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		echo "$prog: missing Debian packages: ${missing[*]}" >&2
		echo "$prog: install them with:" \
		    "apt-get install --no-install-recommends ${missing[*]}" >&2
		exit 1
	fi
	echo "$prog: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q &&
	    apt-get install -y -q --no-install-recommends "${missing[@]}" ||
	    { echo "$prog: apt-get failed" >&2; exit 1; }
fi

# --- 2. configure ------------------------------------------------------------

if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	echo "$prog: autoconf"
	autoconf || { echo "$prog: autoconf failed" >&2; exit 1; }
fi

args=$(printf '%q ' "$@")
if [ ! -f config.mk ] || { [ $# -gt 0 ] &&
    [ "$args" != "$(cat config.args 2>/dev/null)" ]; }; then
	echo "$prog: ./configure $*"
	./configure -q "$@" || { echo "$prog: configure failed" >&2; exit 1; }
	printf '%s\n' "$args" >config.args
elif [ configure -nt config.mk ] || [ config.mk.in -nt config.mk ]; then
	echo "$prog: configure is newer than config.mk: reconfiguring"
	./config.status -q --recheck && ./config.status -q ||
	    { echo "$prog: configure failed" >&2; exit 1; }
fi

# --- 3. build and run --------------------------------------------------------

make -j2 || { echo "$prog: build failed" >&2; exit 1; }

if [ "$action" = demo ]; then
	make demo || { echo "$prog: make demo failed" >&2; exit 1; }
	exit 0
fi

summary_re='^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

# check_run: make check, its output shown and kept in $log; sets status.
check_run() {
	make check 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	summary=$(grep -E "$summary_re" "$log" | tail -n 1)
}

check_run
first_status=$status first_summary=$summary

sanitize=${PME_SANITIZE:-}
[ -z "$sanitize" ] && [ "${CI:-}" = true ] && sanitize=1
case " $* " in *" --enable-sanitize-"*) sanitize=0 ;; esac
if [ "$sanitize" != 1 ]; then
	# make's own error line follows a failed run: repeat the total last.
	[ "$first_status" = 0 ] || echo "${first_summary:-0 passed, 1 failed}"
	[ "$first_status" = 0 ]
	exit
fi

# A copy of the tree, so that the normal build stays as it was.  Valgrind
# does not run sanitized programs, so --enable-valgrind is dropped.
sanargs=()
for a; do
	[ "$a" = --enable-valgrind ] || sanargs+=("$a")
done
copy=$(mktemp -d "${TMPDIR:-/tmp}/pme-sanitize.XXXXXX") || exit 1
trap 'rm -f "$log"; rm -rf "$copy"' EXIT
echo
echo "$prog: again with ASan and UBSan, in $copy"
status=
if tar -cf - --exclude=./.git --exclude=./tests/out . | tar -xf - -C "$copy" &&
    cd "$copy" && make -s distclean >/dev/null &&
    ./configure -q "${sanargs[@]}" --enable-sanitize-address \
	--enable-sanitize-undefined && make -j2; then
	check_run
else
	echo "$prog: the ASan+UBSan build failed" >&2
	status=1 summary=
fi
second_status=$status second_summary=$summary

# The command-line tests once more under valgrind memcheck (errors and
# definite leaks fail them): the golden tests and the shell tests of the
# programs' command lines, bad input and outputs, which run pme's
# programs through $PME_VALGRIND (the unit tests had ASan; the longer
# shell tests would take valgrind most of CI's time).  In the same copy,
# configured again with --enable-valgrind.
echo
echo "$prog: the command-line tests under valgrind memcheck, in $copy"
status=
# (Not pmebuild_corrupt and pmehisto_bombs: under memcheck libdwarf,
# on their damaged DWARF, grew past 6 GB in minutes.)
vgtests=(golden/ sh/pmebuild_cli sh/pmehisto_cli sh/pmehisto_golden
    sh/merge_cli sh/wrong_kind sh/pmehisto_escape sh/fuzz_regress)
if cd "$copy" && make -s distclean >/dev/null &&
    ./configure -q "${sanargs[@]}" --enable-valgrind && make -j2; then
	tests/run "${vgtests[@]}" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	summary=$(grep -E "$summary_re" "$log" | tail -n 1)
else
	echo "$prog: the build for valgrind failed" >&2
	status=1 summary=
fi
vg_status=$status vg_summary=$summary

# The fuzz targets (tests/fuzz), each for PME_FUZZ_SECONDS (default 60),
# built with clang, ASan and UBSan in the tree itself; a finding fails.
cd "$top" || exit 1
echo
echo "$prog: the fuzz targets, ${PME_FUZZ_SECONDS:-60} s each"
make fuzz FUZZ_SECONDS="${PME_FUZZ_SECONDS:-60}" 2>&1 | tee "$log"
third_status=${PIPESTATUS[0]}
third_summary=$(grep -E "$summary_re" "$log" | tail -n 1)

# Totals; a run that did not get as far as its tests counts as one failure.
total() {
	local p=0 f=0 s=0 line n
	for line in "$@"; do
		if [ -z "$line" ]; then
			f=$((f + 1))
			continue
		fi
		set -- $line
		p=$((p + $1)) f=$((f + $3))
		[ $# -ge 5 ] && s=$((s + $5))
	done
	if [ $s -gt 0 ]; then
		echo "$p passed, $f failed, $s skipped"
	else
		echo "$p passed, $f failed"
	fi
}
echo
echo "$prog: normal run: ${first_summary:-did not run its tests}"
echo "$prog: ASan+UBSan run: ${second_summary:-did not run its tests}"
echo "$prog: memcheck run: ${vg_summary:-did not run its tests}"
echo "$prog: fuzz targets: ${third_summary:-did not run}"
total "$first_summary" "$second_summary" "$vg_summary" "$third_summary"
[ "$first_status" = 0 ] && [ "$second_status" = 0 ] &&
    [ "$vg_status" = 0 ] && [ "$third_status" = 0 ]
