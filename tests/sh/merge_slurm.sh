#!/bin/bash
#
# merge_slurm.sh - the map-reduce of README.md's "Merging profiles at
# scale" on a real Slurm cluster of one node, started here from Debian's
# slurm-wlm and munge: munged, slurmctld and slurmd run from this test's
# TMPDIR (a minimal slurm.conf: this host as its one node, select/
# cons_tres, proctrack/linuxproc, no cgroups, no accounting; ports chosen
# free), without systemd.  100 runs' sample files; the map is a job array
# of 10 tasks, each filling one bucket file from its 10 sample files
# (pmehisto -c); the reduce a tree: a job array of 2 tasks, each summing 5
# of those (pmemerge), once the map is done, then one job summing the 2.
# The result must be, byte for byte, the bucket file pmehisto fills
# tallying the 100 sample files in one run.  Everything started is
# stopped by its PID, on failure too.
#
# Skipped, with the reason, when not root, when a program is missing, or
# when a daemon does not start in time; a job that does not end in time
# fails.
#
# Exit 0 pass, 77 skip, 1 fail (see tests/run).

. "${PME_TOP:?}/tests/sh/lib/common.sh"
. "$top/tests/sh/lib/merge_runs.sh"

pmemerge=$top/histo/pmemerge
need "$pmemerge" "$tsample" "$pmebuild" "$pmehisto"
[ "$(id -u)" = 0 ] || skip "not root: munged and slurmd run as root here"
for c in munged slurmctld slurmd sbatch squeue sinfo scancel; do
	PATH=$PATH:/usr/sbin command -v $c >/dev/null ||
	    skip "no $c: apt-get install slurm-wlm munge"
done
export PATH=$PATH:/usr/sbin

cd "$tmp" || exit 1
pids=()
jobs_=()
stop() {
	local p i
	[ ${#jobs_[@]} -gt 0 ] && scancel "${jobs_[@]}" 2>/dev/null
	# Jobs end before their slurmd goes: their steps are its children.
	for i in $(seq 50); do
		[ ${#jobs_[@]} -eq 0 ] && break
		[ -z "$(squeue -h -j "$(IFS=,; echo "${jobs_[*]}")" 2>/dev/null)" ] && break
		sleep 0.2
	done
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		p=${pids[i]}
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		for i in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
trap stop EXIT

# A free TCP port from 20000 up, not in /proc/net/tcp's listening ones.
used=$(awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print a[2] }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null |
    while read -r h; do echo $((16#$h)); done)
port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 30000))
		grep -qx "$p" <<<"$used" || { used+=$'\n'$p; echo $p; return; }
	done
}
ctldport=$(port)
dport=$(port)

# munge: a key of our own, its socket here (--force: TMPDIR is 0700).
mkdir munge state spool
chmod 700 munge
dd if=/dev/urandom of=munge/key bs=1024 count=1 2>/dev/null
chmod 600 munge/key
munged --foreground --force --socket="$tmp/munge/sock" \
    --key-file="$tmp/munge/key" --pid-file="$tmp/munge/pid" \
    --log-file="$tmp/munge/log" --seed-file="$tmp/munge/seed" \
    >munge/out 2>&1 &
pids+=($!)

host=$(hostname -s)
cpus=$(nproc)
cat >slurm.conf <<EOF
ClusterName=pmetest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctldport
SlurmdPort=$dport
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=pmetest Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf

waitfor() {	# SECONDS COMMAND...: until COMMAND succeeds; 1 on timeout
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}
logs() {	# the daemons' last words, on standard error
	local f
	for f in munge/log slurmctld.log slurmd.log; do
		[ -f "$f" ] && { echo "--- $f"; tail -n 5 "$f"; }
	done >&2
}

waitfor 15 test -S munge/sock || { logs; skip "munged did not start in 15 s"; }
slurmctld -D -f slurm.conf >ctld.out 2>&1 &
pids+=($!)
slurmd -D -f slurm.conf >slurmd.out 2>&1 &
pids+=($!)
idle() { [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; }
waitfor 60 idle || { logs; skip "the Slurm node was not idle in 60 s"; }

# --- the map-reduce --------------------------------------------------------------

"$pmebuild" -q "$top/tests/histo/gravel.pmd" layout.pme >/dev/null ||
    { fail "pmebuild failed"; finish; }
merge_runs 100
for f in s*.smp; do
	"$tsample" write "${f%.smp}.pms" <"$f" || { fail "t_sample failed"; finish; }
done

# Map: task i fills map_i.pme from its sample files (one host's, in a
# real cluster).
cat >map.sh <<EOF
#!/bin/sh
i=\$SLURM_ARRAY_TASK_ID
exec "$pmehisto" -c -q -b layout.pme -B map_\$i.pme -o /dev/null -T none \\
    s\$(printf %03d \$i)?.pms
EOF
# Reduce: task j sums maps 5j to 5j+4; then the sum of those.
cat >reduce.sh <<EOF
#!/bin/sh
j=\$SLURM_ARRAY_TASK_ID
exec "$pmemerge" -o red_\$j.pme \$(seq -f map_%g.pme \$((j * 5)) \$((j * 5 + 4)))
EOF
sb() {	# sbatch ARGS...: the job id, kept for stop
	local id
	id=$(sbatch --parsable --chdir="$tmp" "$@") || return 1
	id=${id%%;*}
	jobs_+=("$id")
	echo "$id"
}
map=$(sb --array=0-9 -o map_%a.out map.sh) &&
    red=$(sb --array=0-1 --dependency=afterok:$map -o red_%a.out reduce.sh) &&
    sum=$(sb --dependency=afterok:$red -o sum.out \
	--wrap "exec \"$pmemerge\" -o sum.pme red_0.pme red_1.pme") ||
    { fail "sbatch failed"; logs; finish; }
# Done when no job is left, or when one waits for a job that failed.
done_() {
	local r
	r=$(squeue -h -o %r -j "$map,$red,$sum" 2>/dev/null)
	[ -z "$r" ] || grep -q DependencyNeverSatisfied <<<"$r"
}
waitfor 300 done_ || { fail "the jobs did not end in 300 s:"; squeue >&2; logs; finish; }
state=$(scontrol show job "$sum" 2>/dev/null | grep -o 'JobState=[A-Z]*')
[ "$state" = JobState=COMPLETED ] ||
    { fail "the reduce job: $state:"; cat map_*.out red_*.out sum.out >&2; logs; finish; }

"$pmehisto" -c -q -b layout.pme -B direct.pme -o /dev/null -T none s*.pms ||
    { fail "pmehisto over the 100 sample files failed"; finish; }
[ -s map_9.pme ] || fail "no map_9.pme: the map did not run"
cmp sum.pme direct.pme ||
    fail "the Slurm map-reduce is not the bucket file of one run over the samples"
grep -q "^Runs:  *100$" <("$pmehisto" -t -b sum.pme -o - -T none 2>/dev/null) ||
    fail "sum.pme: not 100 runs"

finish
