#!/usr/bin/env bash
# Judges one run that ftcoll must end with MPI_Abort (a silent rank, ranks
# in different collectives, a call past the watchdog's deadline):
#   - the launcher exits with a failure status, before the safety limit;
#   - the output matches every EXPECT regular expression (the diagnosis);
#   - when the program printed "checkin-start T" (epoch seconds, just before
#     the stalled collective), the job ended at most WITHIN seconds later;
#   - no process of the job is left: every pid the ranks wrote is gone.
#
#   guard_abort.sh WITHIN EXPECT... -- LAUNCHER... PROGRAM ARGS...
set -u
within=$1
shift
expect=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do expect+=("$1"); shift; done
shift
pids=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf "$pids" "$log"' EXIT

FTCOLL_TEST_PID_DIR=$pids timeout -k 5 120 "$@" </dev/null >"$log" 2>&1
rc=$?
ended=$(date +%s.%N)
cat "$log"
verdict=0
judge() { echo "guard-abort: $*"; verdict=1; }

if [ $rc -eq 0 ]; then
    judge "the job exited 0: it was not aborted"
elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    judge "the job hung (killed after 120 s)"
fi
for pattern in "${expect[@]}"; do
    grep -aqE -- "$pattern" "$log" || judge "no line matches: $pattern"
done
start=$(grep -a '^checkin-start ' "$log" | tail -1 | cut -d' ' -f2)
if [ -n "$start" ]; then
    took=$(echo "$ended - $start" | bc)
    echo "guard-abort: ended ${took} s after the stalled collective began (limit ${within} s)"
    [ "$(echo "$took <= $within" | bc)" -eq 1 ] || judge "took ${took} s, more than ${within} s"
fi
# The launcher may return while its processes are still being torn down:
# each must be gone within 5 s.
alive() {
    kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}
npids=0
for file in "$pids"/*.pid; do
    [ -e "$file" ] || continue
    npids=$((npids + 1))
    pid=$(cat "$file")
    for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then
        judge "process $pid ($(basename "$file" .pid)) is still running 5 s after the job"
        kill -9 "$pid" 2>/dev/null
    fi
done
[ $npids -gt 0 ] || judge "no rank wrote its pid"
[ $verdict -eq 0 ] && echo "guard-abort: PASS ($npids processes, all gone)"
exit $verdict
