#!/bin/sh
# detect-http.sh: one default `fencecheck run` per seed against the
# reference receiver, each run against a receiver process of its own, and
# the count of exit codes. This is the per-run detection figure of
# docs/exploration.md ("One default run against the reference receiver"):
# a real receiver on loopback, the Go scheduler and the network ordering
# the interleavings, so the figures vary from machine to machine and with
# the load; they are measured, not reproduced.
#
# usage: scripts/detect-http.sh BIN BUG FIRST LAST [PARALLEL] [RUN FLAGS...]
#   BIN       the fencecheck binary
#   BUG       a --bug mode of `fencecheck receiver`, or none
#   FIRST LAST  the seeds, both included
#   PARALLEL  runs at once (default 2)
# Prints one line per seed (seed, exit code) and a summary line:
#   BUG seeds FIRST-LAST: V violated (exit 1), H held (exit 0), I inconclusive (exit 2), E errors; first violated seed S
set -u
bin=$1 bug=$2 first=$3 last=$4 par=${5:-2}
shift 4; [ $# -gt 0 ] && shift
out=$(mktemp -d /tmp/detect-http.XXXXXX)
one() {
	seed=$1; shift
	dir=$out/$seed; mkdir -p "$dir"; : >"$dir/receiver.out"
	"$bin" receiver --listen 127.0.0.1:0 --bug "$bug" --request-log off >"$dir/receiver.out" 2>"$dir/receiver.err" &
	rpid=$!
	i=0; addr=
	while [ $i -lt 100 ] && [ -z "$addr" ]; do
		addr=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/receiver.out")
		[ -z "$addr" ] && sleep 0.05; i=$((i+1))
	done
	"$bin" run --target "$addr" --seed "$seed" --store "$dir/store" "$@" >"$dir/run.out" 2>&1
	rc=$?
	kill "$rpid" 2>/dev/null; wait "$rpid" 2>/dev/null
	echo "$seed $rc" >"$dir/rc"
	echo "seed $seed exit $rc"
}
seed=$first
while [ "$seed" -le "$last" ]; do
	n=0
	while [ $n -lt "$par" ] && [ "$seed" -le "$last" ]; do
		one "$seed" "$@" &
		seed=$((seed+1)); n=$((n+1))
	done
	wait
done
cat "$out"/*/rc | sort -n | awk -v bug="$bug" -v first="$first" -v last="$last" -v out="$out" '
	{ c[$2]++; if ($2 == 1 && (fv == "" || $1 < fv)) fv = $1 }
	END {
		e = 0; for (k in c) if (k != 0 && k != 1 && k != 2) e += c[k]
		printf "%s seeds %d-%d: %d violated (exit 1), %d held (exit 0), %d inconclusive (exit 2), %d errors; first violated seed %s; runs in %s\n",
			bug, first, last, c[1]+0, c[0]+0, c[2]+0, e, (fv == "" ? "none" : fv), out
	}'
