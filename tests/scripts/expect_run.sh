#!/usr/bin/env bash
# Runs a command and judges it by its exit status and its output.
#
#   expect_run.sh STATUS REGEX... -- COMMAND...
#
# STATUS is a number, or "nonzero". Passes when COMMAND exits with STATUS and its output (stdout and stderr)
# matches every REGEX (grep -E) and no crash marker.
set -uo pipefail
want=$1
shift
regexes=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    regexes+=("$1")
    shift
done
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
verdict=0
if { [ "$want" = nonzero ] && [ "$status" -eq 0 ]; } \
   || { [ "$want" != nonzero ] && [ "$status" -ne "$want" ]; }; then
    echo "expect_run: exit status $status, expected $want"
    verdict=1
fi
for regex in "${regexes[@]}"; do
    if ! grep -Eq -- "$regex" <<< "$output"; then
        echo "expect_run: no line matches: $regex"
        verdict=1
    fi
done
if grep -Eq "Process received signal|AddressSanitizer|runtime error:|stack smashing" <<< "$output"; then
    echo "expect_run: a process crashed"
    verdict=1
fi
[ $verdict -eq 0 ] && echo "expect_run: PASS"
exit $verdict
