#!/usr/bin/env bash
# An unmodified program gives exactly the same answers with ftcoll's layer.
#
#   pmpi_compare.sh "PLAIN LAUNCH..." "FTCRUN LAUNCH..." PROGRAM ARGS...
#
# Runs PROGRAM under both launch commands (each split at spaces) and
# compares standard output byte for byte; ftcrun's summary (stderr) must
# show that ftcoll ran the collectives.
set -uo pipefail
read -r -a plain <<< "$1"
read -r -a layered <<< "$2"
shift 2
expected=$("${plain[@]}" "$@" 2>/dev/null) || { echo "pmpi_compare: the plain run failed"; exit 1; }
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
got=$("${layered[@]}" "$@" 2>"$summary") || { cat "$summary"; echo "pmpi_compare: the ftcrun run failed"; exit 1; }
cat "$summary"
echo "without ftcoll: $expected"
echo "with ftcoll:    $got"
if [ "$expected" != "$got" ]; then
    echo "pmpi_compare: FAIL: the answers differ"
    exit 1
fi
if ! grep -Eq "allreduce [1-9][0-9]* by ftcoll" "$summary"; then
    echo "pmpi_compare: FAIL: ftcoll ran no allreduce"
    exit 1
fi
echo "pmpi_compare: PASS"
