#!/usr/bin/env bash
# Benchmarks the PMPI layer's overhead: each collective through the layer
# against the same call made directly (ftcoll's API, or PMPI_ for a call
# the layer forwards), at several rank counts.
#
# Usage: scripts/bench-pmpi.sh [RANKS...]      (default: 2 4 8 16)
# Environment:
#   FTCOLL_BENCH_PMPI  the ftcoll-bench-pmpi binary (default: build/bench/ of
#                      this repository); results go to bench-results/pmpi.csv
#   FTCOLL_MPI_PREFIX  Open MPI installation (default $HOME/.cache/ftcoll/openmpi-5.0.7-ulfm)
#   FTCOLL_BENCH_ARGS  extra options (e.g. "--rounds 50 --calls 500")
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=${FTCOLL_BENCH_PMPI:-$repo_root/build/bench/ftcoll-bench-pmpi}
prefix=${FTCOLL_MPI_PREFIX:-$HOME/.cache/ftcoll/openmpi-5.0.7-ulfm}
[ -x "$bench" ] || { echo "bench-pmpi: no $bench (run make build)" >&2; exit 2; }
[ -x "$prefix/bin/mpirun" ] || { echo "bench-pmpi: no $prefix/bin/mpirun" >&2; exit 2; }
export OPAL_PREFIX=$prefix PRTE_PREFIX=$prefix PMIX_PREFIX=$prefix
export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(2 4 8 16)
mkdir -p bench-results
csv=bench-results/pmpi.csv
rm -f "$csv"
cores=$(nproc)
read -r -a extra <<< "${FTCOLL_BENCH_ARGS:-}"
for p in "${ranks[@]}"; do
    [[ "$p" =~ ^[1-9][0-9]*$ ]] || { echo "bench-pmpi: \"$p\" is not a rank count" >&2; exit 2; }
    echo "# ranks $p on $cores cores$([ "$p" -gt "$cores" ] && echo ' (oversubscribed)')"
    "$prefix/bin/mpirun" --with-ft ulfm --oversubscribe --bind-to none -n "$p" \
        "$bench" --csv "$csv" "${extra[@]}"
done
echo "# rows in $csv"
