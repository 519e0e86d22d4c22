#!/usr/bin/env bash
# Runs every scenario of a kill-scenario file (tests/mpi/kill_scenarios.txt
# for ftc_allreduce, bcast_kill_scenarios.txt for ftc_bcast) under mpirun and ends with the table: scenarios, survived, wrong results,
# hangs. A scenario survives when the lowest survivor prints its
# "<collective>-kill ... survivors=N ...: PASS" line (its checks: every
# result exact, the outcome the same everywhere),
# as many ranks died as the scenario kills, and mpirun exits 0. A run in
# which fewer ranks died than planned (a late death pre-empted by an earlier
# one's notice) is run again, up to three times.
#
#   allreduce_kill_table.sh SCENARIOS TIMEOUT LAUNCHER... -- PROGRAM
# LAUNCHER is mpirun with its flags, up to the process-count flag (-n).
set -u
scenarios=$1 limit=$2
shift 2
launcher=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do launcher+=("$1"); shift; done
shift
program=$1

total=0 survived=0 wrong=0 hangs=0 other=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while IFS='|' read -r ranks env spec; do
    ranks=$(echo "$ranks" | tr -d ' ')
    case "$ranks" in ''|'#'*) continue ;; esac
    env=$(echo "$env" | xargs)
    spec=$(echo "$spec" | xargs)
    [ "$env" = "-" ] && env=
    total=$((total + 1))
    start=$(date +%s.%N)
    kills=$(grep -o "kill" <<<"$spec" | wc -l)
    # A death planned late in a call is pre-empted when the survivors learn
    # of an earlier one first (on a loaded machine a step may take longer
    # than ULFM's notice): a timing race, not a failure, so such a run is
    # tried again, up to three times in all (never one with a wrong result
    # or a sanitizer report: those are judged as they are).
    for attempt in 1 2 3; do
        # shellcheck disable=SC2086 # env holds VAR=value words
        env FTCOLL_INJECT="$spec" $env timeout -k 5 "$limit" \
            "${launcher[@]}" "$ranks" "$program" </dev/null >"$log" 2>&1
        rc=$?
        line=$(grep -aE "^[a-z_]+-kill " "$log" | tail -1)
        [[ "$line" == *": PASS" ]] && [[ "$line" != *" survivors=$((ranks - kills)) "* ]] \
            && [ "$rc" -eq 0 ] \
            && ! grep -aq "MISMATCH\|: FAIL\|^FAIL\|Sanitizer\|runtime error:" "$log" || break
        echo "           attempt $attempt: not every planned death happened; again"
    done
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        verdict=HANG; hangs=$((hangs + 1))
    elif grep -aq "AddressSanitizer\|LeakSanitizer\|runtime error:" "$log"; then
        verdict=ERROR; other=$((other + 1))
        echo "           a sanitizer report"
    elif grep -aq "MISMATCH\|: FAIL\|^FAIL" "$log"; then
        verdict=WRONG; wrong=$((wrong + 1))
    elif [[ "$line" == *": PASS" ]] && [[ "$line" != *" survivors=$((ranks - kills)) "* ]]; then
        verdict=ERROR; other=$((other + 1))
        echo "           $kills directive(s), but not as many ranks died: fix the scenario"
    elif [[ "$line" == *": PASS" ]] && [ $rc -ne 0 ]; then
        verdict=ERROR; other=$((other + 1))
        echo "           mpirun exited $rc"
    elif [[ "$line" == *": PASS" ]]; then
        verdict=survived; survived=$((survived + 1))
    else
        verdict=ERROR; other=$((other + 1))
    fi
    printf '%-8s p=%-2s %5.1fs  %s%s\n' "$verdict" "$ranks" "$seconds" "${env:+$env }" "$spec"
    [ -n "$line" ] && printf '           %s\n' "$line"
    if [ "$verdict" != survived ]; then
        grep -a "MISMATCH\|FAIL\|rror" "$log" | head -5 | sed 's/^/           /'
    fi
done <"$scenarios"

echo
printf '%-10s %-9s %-14s %-6s %s\n' scenarios survived "wrong results" hangs "other errors"
printf '%-10s %-9s %-14s %-6s %s\n' "$total" "$survived" "$wrong" "$hangs" "$other"
[ "$total" -gt 0 ] && [ "$survived" -eq "$total" ]
