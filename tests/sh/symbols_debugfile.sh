#!/bin/bash
#
# symbols_debugfile.sh - symbols of stripped programs and libraries, and
# their separate debug files found where gdb looks (pme_symbols.h,
# lib/debugfile.h), through pmebuild -x and the t_pmebuild layout:
#   a stripped copy with its debug split by objcopy --only-keep-debug and
#     --add-gnu-debuglink, the debug file beside it, in its .debug/
#     directory, under PME_DEBUG_FILE_DIRECTORY followed by its directory,
#     and by build-id in PME_DEBUG_FILE_DIRECTORY's .build-id/: the same
#     units and buckets as the unstripped program's (load module aside);
#   a debug file whose CRC differs, or whose build-id does, is not taken;
#   a stripped copy with no debug file: one module named after it over
#     the whole .text (readelf's range), one routine "[p]" over it, and
#     address-step buckets (PROGRAM p,,40) that count samples made with
#     the sample writer at known addresses;
#   a shared library stripped with --strip-unneeded: its exported
#     functions (.dynsym), and the rest of .text as one routine
#     "[libw.so]"; with its debug file, its static functions by name.
# Before lib/debugfile.c, the stripped copies had no routine ("no routines
# in .text") and PROGRAM p,,40 had no addresses.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"

layout=$top/tests/unit/t_pmebuild
command -v gcc >/dev/null || skip "no gcc"
command -v objcopy >/dev/null || skip "no objcopy"
need "$layout" "$tsample" "$pmebuild" "$pmehisto"
unset PME_DEBUG_FILE_DIRECTORY

cd "$tmp" || exit 1
cat >p.c <<'C'
#include <stdio.h>
static volatile unsigned long sink;
static __attribute__((noinline)) void spin_a(unsigned long n)
{ for (unsigned long i = 0; i < n; i++) sink += i * 3; }
static __attribute__((noinline)) void spin_b(unsigned long n)
{ for (unsigned long i = 0; i < n; i++) sink ^= i * 7; }
int main(int argc, char **argv)
{ (void)argv; spin_a(argc * 1000UL); spin_b(argc * 100UL);
  printf("%lu\n", sink); return 0; }
C
cat >w.c <<'C'
static volatile unsigned long wsink;
static __attribute__((noinline)) void w_inner(unsigned long n)
{ for (unsigned long i = 0; i < n; i++) wsink += i; }
void w_run(unsigned long n) { w_inner(n); }
C
gcc -g -O1 -o p p.c && gcc -g -O1 -fPIC -shared -o libw.so w.c ||
    { fail "cannot build the fixtures"; finish; }
objcopy --only-keep-debug p p.debug &&
objcopy --only-keep-debug libw.so libw.so.debug || fail "objcopy"
id=$(readelf -n p | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || skip "gcc makes no build-id note here"

# The layout of pmebuild -x on $1 (env in $2...), module line aside.
units() {	# FILE [VAR=VALUE...]
	local f=$1
	shift
	env "$@" "$pmebuild" -q -x "$f" -o "$tmp/u.pme" 2>"$tmp/u.err" ||
	    { echo "pmebuild failed: $(cat "$tmp/u.err")"; return; }
	"$layout" layout "$tmp/u.pme" | grep -v '^module '
}
units p >want

# $1: where; $2: the stripped copy; then the environment.
same() {	# WHAT FILE [VAR=VALUE...]
	local what=$1
	shift
	units "$@" >got
	diff -u want got >diff || fail "$what: not the unstripped units:" \
	    "$(head -20 diff)"
}

mkdir -p beside dotdebug/.debug global/dd bid/dd crc
objcopy --strip-all --add-gnu-debuglink=p.debug p beside/p &&
    cp p.debug beside/ || fail "strip beside"
objcopy --strip-all --add-gnu-debuglink=p.debug p dotdebug/p &&
    cp p.debug dotdebug/.debug/ || fail "strip .debug"
objcopy --strip-all --add-gnu-debuglink=p.debug p global/p &&
    mkdir -p "global/dd$tmp/global" && cp p.debug "global/dd$tmp/global/" ||
    fail "strip global"
objcopy --strip-all p bid/p && mkdir -p "bid/dd/.build-id/${id:0:2}" &&
    cp p.debug "bid/dd/.build-id/${id:0:2}/${id:2}.debug" || fail "strip bid"
same "debuglink beside it" beside/p
same "debuglink in .debug/" dotdebug/p
same "debuglink under the debug directory" global/p \
    PME_DEBUG_FILE_DIRECTORY="$tmp/nothing:$tmp/global/dd"
same "build-id under the debug directory" bid/p \
    PME_DEBUG_FILE_DIRECTORY="$tmp/bid/dd"

# Not the debug file: another CRC (a byte changed), another build-id.
objcopy --strip-all --add-gnu-debuglink=p.debug p crc/p &&
    cp p.debug crc/p.debug && printf x >>crc/p.debug || fail "strip crc"
units crc/p >got
grep -q "^unit .* '\[p\]' kind 2" got ||
    fail "a debug file of another CRC was taken: $(cat got)"
gcc -g -O1 -Wl,--build-id=0x0102030405060708090a0b0c0d0e0f1011121314 -o other p.c &&
    objcopy --only-keep-debug other other.debug &&
    mkdir -p "bid/dd/.build-id/${id:0:2}" &&
    cp other.debug "bid/dd/.build-id/${id:0:2}/${id:2}.debug" ||
    fail "other build"
units bid/p PME_DEBUG_FILE_DIRECTORY="$tmp/bid/dd" >got
grep -q "^unit .* '\[p\]' kind 2" got ||
    fail "a debug file of another build-id was taken: $(cat got)"

# No debug file: one routine over the whole .text.
text=$(readelf -SW p | awk '$2 == ".text" { print $4, $6 }')
set -- $text
lo=$(printf '%x' $((0x$1)))
hi=$(printf '%x' $((0x$1 + 0x$2)))
units crc/p >got
"$pmebuild" -x crc/p -o u.pme 2>u.err
grep -qx "unit 2 '\[p\]' kind 2 parent 1 module 0 flags 0 step 0 -:0 $lo-$hi" \
    got || fail "no debug file: not one routine [p] over $lo-$hi: $(cat got)"
grep -q "warning: 'crc/p': stripped: no debug file found: only the exported" \
    u.err || fail "no debug file: no warning: $(cat u.err)"

# Address steps on it: the samples at known addresses, by 0x40 bytes.
printf '%s\n' 'DEFINE UNITS: PROGRAM, MODULE' 'PROGRAM p' \
    'DEFINE ADDRESSES: EXE "crc/p"' 'DEFINE SAMPLING' 'PROGRAM p,,40' END \
    >step.pmd
expect "address steps" 0 "$pmebuild" -q step.pmd step.pme
base=0x555555554000
{
	echo "header method=test event=cpu-clock period=1000000 pid=8 argv=p"
	echo "map pid=8 start=$base end=$(printf 0x%x $((base + 0x100000))) offset=0 vaddr=0 path=$tmp/crc/p flags=exec,main"
	printf 'sample pid=8 pc=0x%x count=3\n' $((base + 0x$lo))
	printf 'sample pid=8 pc=0x%x count=1\n' $((base + 0x$lo + 0x45))
	echo close
} | "$tsample" write step.pms || fail "sample file"
expect "address steps: pmehisto" 0 "$pmehisto" -q -T csv -b step.pme step.pms
b0=$(printf '%X' $((0x$lo))); b1=$(printf '%X' $((0x$lo + 0x40)))
grep -qi "^0,p,PROGRAM,.*,0x$b0,0x[0-9a-f]*,3," "$tmp/out" &&
    grep -qi "^1,p,PROGRAM,.*,0x$b1,0x[0-9a-f]*,1," "$tmp/out" ||
    fail "address steps: not 3 and 1 samples at $b0, $b1: $(head -5 "$tmp/out")"

# A shared library: .dynsym alone, then its debug file.
mkdir -p lib
objcopy --strip-unneeded --add-gnu-debuglink=libw.so.debug libw.so lib/libw.so ||
    fail "strip libw.so"
units lib/libw.so >got
grep -q "^unit .* 'w_run' kind 2" got && ! grep -q "'w_inner'" got &&
    grep -q "^unit .* '\[libw.so\]' kind 2" got ||
    fail "stripped libw.so: not w_run and [libw.so] alone: $(cat got)"
cp libw.so.debug lib/
units libw.so >want
same "libw.so with its debug file" lib/libw.so

finish
