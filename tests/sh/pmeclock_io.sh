#!/bin/bash
#
# pmeclock_io - pmeclock -e io and pmehisto -V io on I/O whose calls are
# known exactly (tests/fixtures/io/io.c): per call site (routine) the
# calls and bytes the fixture made (N writes of B bytes, P preads of 100,
# an fsync, 10 pipe writes and reads of 64, 8 sends and receives of 32 on
# a socketpair); per file the data file's calls and bytes under its path,
# and the pipe's and socket's bytes under their names; the ten slowest
# calls, with their stacks; the time per site at most the fixture's own
# clock_gettime figure around the same calls and within 2% or 2 ms of it,
# less its time in the runqueue (schedstat)
# (the calls' kernel time is inside the program's); the counts per system
# call equal strace -c -f's of the same program (its calls are the same
# in every run), and perf trace -s's or one more (perf trace misses a
# call now and then on a busy machine); with -j (randomized clock periods)
# every site's calls and bytes the same; an openat right after the
# library making it was mapped has its site, however the rings' records
# come (tests/fixtures/io/dlio.c); records lost as the run ends said
# (the kernel writes no LOST record then); python3's opens named at the
# call by uprobes (each of five files its 160 calls); a file of two runs joined reported as
# the two files; the same as CSV (-T csv); -V io refused with -T ps,
# and on a run without I/O records.  Programs nobody here wrote, counts per system call equal to
# strace -f's: Debian's gzip compressing a file, xz with two threads, a
# shell running gzip twice, python3 reading a file.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

need "$pmeclock" "$pmehisto"
cd "$tmp" || exit 1
gcc -O2 -g -o io "$top/tests/fixtures/io/io.c" ||
    { fail "cannot build the fixture"; finish; }
mkdir d || exit 1
N=50 B=1000 P=20
if ! "$pmeclock" -q -e io -o probe.PMS ./io "$tmp/d" 1 1 0 2>probe.err; then
	grep -q perf_event_open probe.err ||
	    { fail "pmeclock -e io: $(cat probe.err)"; finish; }
	skip "perf_event_open cannot trace system calls here: $(cat probe.err)"
fi

"$pmeclock" -e io -o io.PMS ./io "$tmp/d" $N $B $P 2>run.err ||
    fail "pmeclock -e io: $(cat run.err)"
grep -q "without the other" run.err && fail "unpaired calls: $(cat run.err)"
"$pmehisto" -V io io.PMS >rep 2>rep.err || fail "pmehisto -V io: $(cat rep.err)"

# The rows of one table of the report: "CALLS ERRORS BYTES TOTAL MEAN MAX
# [CALL] KEY".
table() {
	awk -v t="$1" '/^By / { on = ($0 == t) ; next } /^$/ { on = 0 }
	    on && $1 ~ /^[0-9]+$/' rep
}
# calls bytes total-ns of routine's site for call
site() {
	table "By call site" | awk -v c="$2" -v r="$1" '$7 == c && $8 == r {
	    n += $1; b += $3; t += $4 * 1e6 } END { printf "%d %d %.0f\n",
	    n, b, t }'
}
check_site() {	# routine call calls bytes
	set -- "$1" "$2" "$3" "$4" "$(site "$1" "$2")"
	[ "$5" = "$3 $4 ${5##* }" ] ||
	    fail "$1 $2: calls, bytes, ns $5, not $3 $4"
}
check_site opener openat 1 0
check_site writer write $N $((N * B))
check_site syncer fsync 1 0
check_site preader pread64 $P $((P * 100))
check_site closer close 1 0
check_site pipewriter write 10 640
check_site piper read 10 640
check_site sender sendto 8 256
check_site receiver recvfrom 8 256

# The data file by its path: open, N writes, fsync, P preads, close.
row=$(table "By file" | awk -v f="$tmp/d/data" '$7 == f { print $1, $3 }')
[ "$row" = "$((N + P + 3)) $((N * B + P * 100))" ] ||
    fail "file $tmp/d/data: calls and bytes '$row', not $((N + P + 3)) $((N * B + P * 100))"
# The pipe and the socketpair: named as the kernel names them when
# pmeclock finds them open (the process may have ended: "fd N"), never
# under another file's name (the fixture moves them to descriptors of
# their own, 40 and 41, 50 and 51).
for want in "pipe 4[01] 1280" "socket 5[01] 512"; do
	set -- $want
	got=$(table "By file" | awk -v k="$1" -v f="^$2$" '$7 ~ "^" k ":\\[[0-9]+\\]$" ||
	    ($7 == "fd" && $8 ~ f) { b += $3 } END { print b + 0 }')
	[ "$got" = "$3" ] || fail "$1: $got bytes, not $3"
done

# The slowest calls with their stacks: ten, at most seven of them ld.so's
# (its opens, reads and closes of libc), so some under main.
[ "$(awk '/^Slowest calls/ { on = 1; getline; next } on && /^ *[0-9.]+ /' \
    rep | wc -l)" -eq 10 ] || fail "not ten slowest calls"
awk '/^Slowest calls/ { on = 1; next } on' rep |
    grep -q '^ \{20,\}main (.*io\.c:[0-9]*)$' ||
    fail "no slowest call's stack through main (io.c:N)"

# Times: pme's inside the program's, within 2% or 2 ms, less the time the
# routine spent in the runqueue (the fixture's fourth column, from its
# schedstat): a preemption as a call returns is in the program's clock,
# not in the call's (the CI's ASan run: 1.3 ms of writes, 3.7 measured).
while read -r r calls ns delay; do
	case $r in
	opener) c=openat ;; writer|pipewriter) c=write ;; syncer) c=fsync ;;
	preader) c=pread64 ;; closer) c=close ;; piper) c=read ;;
	sender) c=sendto ;; receiver) c=recvfrom ;;
	esac
	got=$(site "$r" "$c")
	got=${got##* }
	awk -v g="$got" -v w="$ns" -v q="${delay:-0}" 'BEGIN { d = w - g;
	    tol = w * 0.02; if (tol < 2e6) tol = 2e6;
	    exit !(d >= -1000 && d <= tol + q) }' ||
	    fail "$r: $got ns in its calls, the program measured $ns," \
	    "$delay of it in the runqueue"
done <d/times

# Counts per system call: pme's, strace's, perf trace's.
calls="read write openat close fsync pread64 sendto recvfrom"
pme_counts() {	# report
	awk '/^By call$/ { on = 1; next } /^$/ && on == 2 { exit }
	    on && $1 ~ /^[0-9]+$/ { on = 2; print $7, $1 }' "$1" | sort
}
strace_counts() {	# strace -c output
	awk -v want=" $calls " '$NF != "total" && index(want, " " $NF " ") &&
	    $(NF - 1) ~ /^[0-9]+$/ { print $NF, ($(NF - 2) ~ /^[0-9]+$/ &&
	    NF == 6) ? $(NF - 2) : $(NF - 1) }' "$1" | sort
}
pme_counts rep >pme.counts
if command -v strace >/dev/null; then
	strace -f -c -w -o strace.out ./io "$tmp/d" $N $B $P ||
	    fail "strace of the fixture"
	awk '$NF != "total" && $NF ~ /^[a-z0-9_]+$/ { n = ($5 ~ /^[0-9]+$/ &&
	    NF == 6) ? $4 : $4; print $NF, n }' strace.out |
	    grep -wE "$(echo $calls | tr ' ' '|')" | sort >strace.counts
	diff -u strace.counts pme.counts >diff.strace ||
	    fail "counts per call differ from strace's: $(cat diff.strace)"
else
	echo "pmeclock_io: no strace: its comparison left out" >&2
fi
if command -v perf >/dev/null && perf trace -s -o perf.out -- ./io \
    "$tmp/d" $N $B $P >/dev/null 2>&1; then
	awk '$1 ~ /^[a-z0-9_]+$/ && $2 ~ /^[0-9]+$/ { print $1, $2 }' \
	    perf.out | grep -wE "$(echo $calls | tr ' ' '|')" |
	    sort >perf.counts
	# perf trace pairs each entry with its exit as it reads its buffers,
	# which it does not put in time order: on a busy machine it missed
	# one of the fixture's 8 closes (strace's and pme's 8).  So its count
	# may be one short of ours, never more.
	join perf.counts pme.counts | awk '$2 > $3 || $2 < $3 - 1' \
	    >diff.perf
	[ "$(wc -l <perf.counts)" = "$(wc -l <pme.counts)" ] &&
	    ! [ -s diff.perf ] ||
	    fail "counts per call differ from perf trace -s's: $(cat diff.perf; diff perf.counts pme.counts)"
else
	echo "pmeclock_io: perf trace cannot run here: its comparison left" \
	    "out" >&2
fi

# Programs nobody here wrote (Debian's, not a wrapper that runs others): counts equal strace's.
real() {	# name command...
	local name=$1
	shift
	"$pmeclock" -q -e io -o "$name.PMS" "$@" >/dev/null 2>"$name.err" ||
	    { fail "$name: pmeclock: $(cat "$name.err")"; return; }
	"$pmehisto" -V io "$name.PMS" >"$name.rep" ||
	    { fail "$name: pmehisto -V io"; return; }
	pme_counts "$name.rep" >"$name.pme"
	strace -f -c -w -o "$name.strace" "$@" >/dev/null 2>&1
	awk '$NF != "total" && $NF ~ /^[a-z0-9_]+$/ { print $NF, $4 }' \
	    "$name.strace" | grep -wE "$(echo $calls | tr ' ' '|')" |
	    sort >"$name.sc"
	diff -u "$name.sc" "$name.pme" >"$name.diff" ||
	    fail "$name: counts differ from strace's: $(cat "$name.diff")"
}
head -c 3000000 "$pmehisto" >input
if command -v strace >/dev/null && [ -x /usr/bin/gzip ]; then
	real gzip /usr/bin/gzip -c -6 input
fi
# Threads: xz's reader and its two workers.
if command -v strace >/dev/null && [ -x /usr/bin/xz ]; then
	real xz /usr/bin/xz -T2 -1 -c input
fi
# Children, one after the other (a pipe between two would make the
# reads' count depend on the timing).
if command -v strace >/dev/null && [ -x /usr/bin/gzip ]; then
	real children /bin/sh -c '/usr/bin/gzip -c input >in.gz &&
	    /usr/bin/gzip -t in.gz'
fi
if command -v strace >/dev/null && [ -x /usr/bin/python3 ]; then
	real python3 /usr/bin/python3 -S -c 'f = open("input", "rb")
while f.read(65536): pass'
	# Names python3 frees as the call returns, read after it: its
	# buffers, used again, were named "\xd0\xday...", "\x02"; such bytes
	# are no name (the descriptor's number is shown).
	"$pmehisto" -V io -T csv python3.PMS >python3.csv 2>/dev/null
	awk -F, '$1 == "file" && $3 ~ /\\x/ { print $3 }' python3.csv >bad.txt
	[ -s python3.csv ] && ! [ -s bad.txt ] ||
	    fail "python3: files named with bytes read after the call: $(head -3 bad.txt)"
fi

# Names at the call: python3 opens five files 300 times by names in
# objects it frees as the call returns (os.open of a bytes object, open
# of a str).  Read after the call the names were lost: 2 of the 800
# calls were booked to the files.  With the uprobes on the C library's
# open64, openat64 and __open_nocancel (pmeclock -v says how many opens
# they named), each file has its 40 os.open and close, and its 20 open,
# 2 reads and close.  Without the third (opendir's), python3's listing
# of its encodings directory, read after the call by a slow pmeclock
# (ASan's), was named after one of the files, with its close: 162.
if [ -x /usr/bin/python3 ]; then
	mkdir pyd && for i in 0 1 2 3 4; do echo x >pyd/f$i; done
	cat >names.py <<'EOF'
import os
for i in range(200):
    os.close(os.open(("pyd/f%d" % (i % 5)).encode(), os.O_RDONLY))
for i in range(100):
    with open("pyd/f%d" % (i % 5)) as f:
        f.read()
EOF
	"$pmeclock" -v -e io -o names.PMS /usr/bin/python3 -S names.py \
	    2>names.err || fail "-e io python3 names.py: $(cat names.err)"
	if grep -q "opens named at the call" names.err; then
		"$pmehisto" -V io -T csv names.PMS 2>/dev/null |
		    awk -F, -v d="$tmp/pyd/" '$1 == "file" &&
		    substr($3, 1, length(d)) == d { print $3, $5 }' |
		    sort >names.got
		for i in 0 1 2 3 4; do echo "$tmp/pyd/f$i 160"; done >names.want
		diff -u names.want names.got >names.diff ||
		    fail "python3's opens: the files' calls: $(cat names.diff)"
		# opendir's open (glibc's __open_nocancel) by the name it
		# was given, which the program changes as it returns: read
		# after the call it would be dirB's, or none.
		mkdir dirA dirB
		cat >odir.c <<'EOF'
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
int
main(void)
{
	char *b = malloc(64);
	DIR *d;

	strcpy(b, "dirA");
	d = opendir(b);
	strcpy(b, "dirB");
	return d == NULL || closedir(d) != 0;
}
EOF
		gcc -O2 -o odir odir.c || fail "cannot build odir.c"
		"$pmeclock" -q -e io -o odir.PMS ./odir 2>odir.err ||
		    fail "-e io odir: $(cat odir.err)"
		got=$("$pmehisto" -V io -T csv odir.PMS 2>/dev/null |
		    awk -F, -v d="$tmp/" '$1 == "file" &&
		    substr($3, 1, length(d)) == d { print $3, $5 }')
		[ "$got" = "$tmp/dirA 2" ] ||
		    fail "opendir's open and close: '$got', not '$tmp/dirA 2'"
		# The probes are gone with pmeclock (only live ones' left).
		for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
			[ -r $t/uprobe_events ] || continue
			for p in $(sed -n 's/^p:pmeclock_[0-9]*_\([0-9]*\)\/n.*/\1/p' \
			    $t/uprobe_events | sort -u); do
				kill -0 "$p" 2>/dev/null ||
				    fail "a name probe of pmeclock $p left in $t"
			done
			break
		done
	else
		echo "pmeclock_io: skipped part: no name probes here:" \
		    "$(grep -e '-e io:' names.err)"
	fi
fi

# Two runs joined (pmemerge): each run's own mappings; the report of the
# joined file is that of the two files.
"$pmeclock" -q -e io -o io2.PMS ./io "$tmp/d" 3 200 2 2>/dev/null ||
    fail "pmeclock -e io, second run"
"$top/histo/pmemerge" -o joined.PMS io.PMS io2.PMS || fail "pmemerge"
"$pmehisto" -V io joined.PMS >joined.rep 2>&1 || fail "-V io of joined runs"
"$pmehisto" -V io io.PMS io2.PMS >two.rep 2>&1 || fail "-V io of two files"
cmp -s joined.rep two.rep || fail "-V io of joined runs differs from the two files'"
expect "-V io -T ps" 2 "$pmehisto" -V io -T ps io.PMS
# The same tables as CSV, times in ns.
"$pmehisto" -V io -T csv io.PMS >rep.csv || fail "-V io -T csv"
[ "$(head -1 rep.csv)" = "table,call,file,site,calls,errors,bytes,total_ns,max_ns" ] ||
    fail "-V io -T csv: heading $(head -1 rep.csv)"
row=$(awk -F, '$1 == "site" && $2 == "write" && $4 ~ /^writer / {
    print $5, $7 }' rep.csv)
[ "$row" = "$N $((N * B))" ] || fail "-V io -T csv: writer's write '$row'"
[ "$(grep -c '^slowest,' rep.csv)" -eq 10 ] || fail "-V io -T csv: slowest"

# With the clock's periods randomized (-j): every call site's calls,
# errors and bytes as without (but the bytes of main's write of the
# fixture's own figures and of rundelay()'s reads of its schedstat,
# whose lengths vary: 150 and 149).
sites() {	# the site rows' call, site, calls, errors, bytes
	awk -F, '$1 == "site" { print $2, $4, $5, $6,
	    $4 ~ /^(main|rundelay) / ? "-" : $7 }' "$1" | sort
}
"$pmeclock" -q -e io -j 20 -o ioj.PMS ./io "$tmp/d" $N $B $P 2>ioj.err ||
    fail "pmeclock -e io -j 20: $(cat ioj.err)"
"$pmehisto" -V io -T csv ioj.PMS >repj.csv || fail "-V io -T csv of -j"
sites rep.csv >sites.txt
sites repj.csv >sitesj.txt
[ -s sites.txt ] && diff -u sites.txt sitesj.txt >sites.diff ||
    fail "-e io -j 20: the call sites differ: $(head -20 sites.diff)"

# Records out of order across rings: a reading of the rings reads one
# after the other as the program runs on, so it can hold an openat's
# entry and not the mapping of the library that made it, which another
# ring got after it was read.  With 20 ms between the rings' readings
# (PME_READ_GAP), dlio opens 20 copies of a library, each followed at
# once by an openat whose pc is in it: every such call's site is caller
# (before, 13 of 20 were a word of the stack: unwound without the
# library's CFI; an ASan build's slow reader did it to io.c's opener).
if [ "$(uname -m)" = x86_64 ]; then
	mkdir dl || exit 1
	if gcc -O2 -g -shared -fPIC -o dl/lib0.so \
	    "$top/tests/fixtures/io/dlio_lib.c" &&
	    gcc -O2 -g -o dlio "$top/tests/fixtures/io/dlio.c" -ldl; then
		for i in $(seq 19); do cp dl/lib0.so dl/lib$i.so; done
		PME_READ_GAP=20000 "$pmeclock" -q -e io -o dl.PMS ./dlio \
		    "$tmp/dl" 20 2>dl.err || fail "-e io ./dlio: $(cat dl.err)"
		"$pmehisto" -V io -T csv dl.PMS >dl.csv 2>dl.err ||
		    fail "-V io of dlio: $(cat dl.err)"
		got=$(awk -F, '$1 == "site" && $2 == "openat" &&
		    $4 ~ /^caller \(/ { print $5 }' dl.csv)
		[ "$got" = 20 ] || fail "dlio: $got of 20 openat calls at \
caller: $(grep '^site,openat' dl.csv)"
	else
		fail "cannot build dlio"
	fi
else
	echo "skipped part: dlio's library makes its system call in x86-64 code"
fi

# Records lost as the run ends: the kernel writes a LOST record only once
# a later record fits, so a ring full at the end lost its records without
# a word (before: "3964 I/O calls recorded, 96044 entries or exits
# without the other", no loss said).  With 300 ms between the rings'
# readings, 100,000 one-byte reads of /dev/zero overflow the entries'
# rings: pmeclock says how many records were lost, and the reads
# recorded and the records lost make the 100,000 or more.
cat >many.c <<'EOF'
#include <fcntl.h>
#include <unistd.h>

int
main(void)
{
	char c;
	int fd = open("/dev/zero", O_RDONLY), i;

	for (i = 0; i < 100000; i++)
		if (read(fd, &c, 1) != 1)
			return 1;
	return 0;
}
EOF
# all_reads WHAT NAME: NAME.PMS's reads and the records NAME.err says
# lost make the 100,000.
all_reads() {
	local lost reads
	lost=$(sed -n 's/^pmeclock: \([0-9]*\) I\/O records lost, .*/\1/p' \
	    "$2.err")
	reads=$("$pmehisto" -V io -T csv "$2.PMS" 2>/dev/null |
	    awk -F, '$1 == "call" && $2 == "read" { print $5 }')
	if [ -z "$lost" ] || [ -z "$reads" ]; then
		fail "$1: no loss said, or no reads: $(cat "$2.err")"
	elif [ $((lost + reads)) -lt 100000 ]; then
		fail "$1: $reads reads recorded and $lost records lost: not 100,000"
	fi
}
if gcc -O2 -o many many.c; then
	PME_READ_GAP=300000 "$pmeclock" -e io -o many.PMS ./many 2>many.err ||
	    fail "-e io ./many: $(cat many.err)"
	all_reads "-e io ./many" many
else
	fail "cannot build many.c"
fi

# A file cut short: -V io reports the calls read and says so (it said
# nothing).
head -c $(($(wc -c <io.PMS) * 7 / 10)) io.PMS >cut.PMS
"$pmehisto" -V io cut.PMS >/dev/null 2>cut.err
grep -q "^pmehisto: 'cut.PMS': cut short.*; the report shows the calls read$" \
    cut.err || fail "-V io of a file cut short: said '$(cat cut.err)'"

# Attached (-p, for 3 s): a process waiting for SIGUSR1, then reading a
# file in 16 reads of 4096 bytes: exactly those calls, that file, the
# reader's call site, as a command's.  (Before, -e io with -p recorded nothing
# and said nothing.)  System-wide (-a): a usage error, nothing written.
cat >attio.c <<'EOF'
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t go;

static void on_usr1(int s) { (void)s; go = 1; }

static void __attribute__((noinline))
reader(const char *path, int k, int b)
{
	char *buf = malloc((size_t)b);
	int fd = open(path, O_RDONLY), i;

	for (i = 0; fd >= 0 && buf != NULL && i < k; i++)
		if (read(fd, buf, (size_t)b) != b)
			exit(1);
	close(fd);
	free(buf);
}

int
main(int argc, char **argv)
{
	FILE *fp;

	if (argc != 5)
		return 2;
	signal(SIGUSR1, on_usr1);
	if ((fp = fopen(argv[4], "w")) == NULL)
		return 1;
	fprintf(fp, "ready\n");
	fclose(fp);
	while (!go)
		pause();
	reader(argv[1], atoi(argv[2]), atoi(argv[3]));
	for (;;)	/* alive while pmeclock names the file */
		pause();
}
EOF
if gcc -O1 -g -o attio attio.c; then
	head -c 65536 "$pmehisto" >att.in
	./attio "$tmp/att.in" 16 4096 att.ready &
	apid=$!
	for i in $(seq 100); do [ -s att.ready ] && break; sleep 0.1; done
	# Three seconds: the name is read from the process's memory as the
	# record is converted, while it lives (pmeclock(1), I/O).
	"$pmeclock" -v -e io -d 3 -p $apid -o att.PMS 2>att.err &
	ppid=$!
	for i in $(seq 100); do grep -qs "attached to" att.err && break
	    sleep 0.1; done
	kill -USR1 $apid
	wait $ppid || fail "-e io -p: $(cat att.err)"
	kill $apid
	wait $apid 2>/dev/null
	"$pmehisto" -V io -T csv att.PMS >att.csv 2>err ||
	    fail "-e io -p: -V io: $(cat err)"
	# table,call,file,site,calls,errors,bytes,total_ns,max_ns
	got=$(awk -F, -v f="$tmp/att.in" '$1 == "file" && $3 == f {
	    print $5, $7 }' att.csv)
	[ "$got" = "18 65536" ] ||
	    fail "-e io -p: att.in's calls and bytes '$got', not '18 65536' (an open, 16 reads, a close): $(head -c 600 att.csv)"
	grep -q "^site,read,[^,]*,reader (attio\.c:[0-9]*),16,0,65536," \
	    att.csv || fail "-e io -p: the reads' site: $(grep ^site att.csv)"
else
	fail "cannot build attio.c"
fi
# Attached, the records lost as the run ends are counted too: the events
# of a thread that was there at the attach write into its CPU's first
# event's ring, and their counts are read with the rings' (before: 1,982
# of 100,000 reads recorded, nothing said lost).  The reads come from a
# second thread, the 300 ms between readings overflow its rings.
cat >attmany.c <<'EOF'
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t go;

static void on_usr1(int s) { (void)s; go = 1; }

static void *
reader(void *arg)
{
	char c;
	int fd = open("/dev/zero", O_RDONLY), i;

	(void)arg;
	while (!go)
		usleep(1000);
	for (i = 0; i < 100000; i++)
		if (read(fd, &c, 1) != 1)
			break;
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	FILE *fp;

	signal(SIGUSR1, on_usr1);
	if (argc != 2 || pthread_create(&t, NULL, reader, NULL) != 0 ||
	    (fp = fopen(argv[1], "w")) == NULL)
		return 1;
	fprintf(fp, "ready\n");
	fclose(fp);
	pthread_join(t, NULL);
	return 0;
}
EOF
if gcc -O2 -pthread -o attmany attmany.c; then
	./attmany attm.ready &
	apid=$!
	for i in $(seq 100); do [ -s attm.ready ] && break; sleep 0.1; done
	PME_READ_GAP=300000 "$pmeclock" -v -e io -d 60 -p $apid -o attm.PMS \
	    2>attm.err &
	ppid=$!
	for i in $(seq 100); do grep -qs "attached to" attm.err && break
	    sleep 0.1; done
	kill -USR1 $apid
	wait $ppid || fail "-e io -p attmany: $(cat attm.err)"
	wait $apid 2>/dev/null
	all_reads "-e io -p attmany" attm
else
	fail "cannot build attmany.c"
fi

echo keep >sys.PMS
expect "-e io -a" 2 "$pmeclock" -e io -a -d 1 -o sys.PMS
grep -qx "pmeclock: -e io traces a command's or a process's calls: not with -a" \
    err || fail "-e io -a: $(cat err)"
[ "$(cat sys.PMS)" = keep ] || fail "-e io -a wrote sys.PMS"

# A run without I/O records: -V io says so, exit status 1.
"$pmeclock" -q -o none.PMS ./io "$tmp/d" 1 1 0 2>/dev/null
expect "-V io of a run without -e io" 1 "$pmehisto" -V io none.PMS
grep -q "none.PMS': no I/O calls recorded (pmeclock -e io" err ||
    fail "-V io without records: $(cat err)"
finish
