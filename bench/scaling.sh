#!/usr/bin/env bash
# How ftcoll's collectives compare with Open MPI's own as the number of
# ranks grows, with a processor core per rank.
#
# For each collective and size (bytes per rank, 4 B .. 1 MiB, doubling),
# ftcoll-bench-native times blocks of back-to-back calls made through
# ftcoll's PMPI layer (what an unmodified program gets) and blocks of the
# same calls made to Open MPI directly, alternating, in the same run; every
# size is first checked to give the same result byte for byte. It reports
# the median time per call of each side and their ratio, ftcoll / native
# (below 1: ftcoll is faster). See bench/README.md.
#
# This script runs it at 8 and 16 ranks, then at 4, one run per collective
# and rank count, in this order of importance: scan, exscan, reduce_scatter,
# scatter, alltoall, gather, reduce, allgatherv, bcast, allreduce (each at
# 8 and 16 ranks), then the same at 4 ranks, then reduce_scatter_block at
# 8, 16 and 4. Ranks are bound one per core (mpirun --bind-to core
# --map-by core), never more ranks than cores.
#
# It needs only .devbench/ at the repository root, made by
# bench/scaling-pack.sh BUILD_DIR MPI_PREFIX: Open MPI (with ULFM), the
# benchmark binary and the libraries they load. No MPI need be installed.
#
# Usage (from anywhere; as root or not):
#   bash bench/scaling.sh OUTDIR
#
# Time: it starts no new run after 400 s and stops any run still going at
# 412 s, so it ends within about 420 s; what was skipped is listed at the
# end. Each run is also limited to 75 s, so a hung run costs at most that;
# a run stopped at its limit still reports the sizes it finished.
#
# Written to OUTDIR:
#   scaling.csv        the benchmark's own rows: ranks,collective,bytes,
#                      rounds,calls,layer_us,native_us,ratio
#   scaling-rows.csv   the same rows taken from the printed output, which
#                      also keeps the sizes of a run stopped by its time limit
#   scaling-table.txt  the ratio table printed at the end
#   scaling.log        everything the runs printed
#   MANIFEST           what .devbench/ holds and which build it came from
#
# Settings (environment, all optional):
#   SCALING_PS           rank counts run first (default "8 16")
#   SCALING_EXTRA_PS     rank counts run after them, as time allows (default "4")
#   SCALING_COLLS        collectives, in order (names as --only takes them)
#   SCALING_LATE_COLLS   collectives run last, at every rank count
#                        (default "reduce_scatter_block")
#   SCALING_BENCH_ARGS   benchmark options (default "--min-bytes 4
#                        --max-bytes 1M --rounds 15 --block-seconds 0.01")
#   SCALING_BUDGET_S     no new run after this many seconds (default 400)
#   SCALING_HARD_S       every run ends by this many seconds (default 412)
#   SCALING_RUN_TIMEOUT_S  the most one run may take (default 75)
#   SCALING_LAUNCH       mpirun's placement options, instead of probing
#                        (default: "--bind-to core --map-by core", or the
#                        hardware-thread equivalent if cores are too few)
set -uo pipefail

die() { echo "scaling: $*" >&2; exit 2; }

[[ $# -eq 1 ]] || die "usage: bash bench/scaling.sh OUTDIR"
mkdir -p "$1" || die "cannot make $1"
out=$(cd "$1" && pwd)
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dev=$repo_root/.devbench
mpi=$dev/mpi
bench=$dev/bin/ftcoll-bench-native
mpirun=$mpi/bin/mpirun
# Execute permissions may be lost in copying.
[[ -x "$bench" && -x "$mpirun" ]] || chmod u+x "$dev"/bin/* "$mpi"/bin/* 2>/dev/null
[[ -x "$bench" && -x "$mpirun" ]] || die "no $bench or $mpirun: run bench/scaling-pack.sh BUILD_DIR MPI_PREFIX first"

SECONDS=0
budget=${SCALING_BUDGET_S:-400}
hard=${SCALING_HARD_S:-412}
run_cap=${SCALING_RUN_TIMEOUT_S:-75}
read -r -a ps <<< "${SCALING_PS:-8 16}"
read -r -a extra_ps <<< "${SCALING_EXTRA_PS-4}"
read -r -a colls <<< "${SCALING_COLLS:-scan exscan reduce_scatter scatter alltoall gather reduce allgatherv bcast allreduce}"
read -r -a late_colls <<< "${SCALING_LATE_COLLS-reduce_scatter_block}"
read -r -a bench_args <<< "${SCALING_BENCH_ARGS:---min-bytes 4 --max-bytes 1M --rounds 15 --block-seconds 0.01}"
rounds=15
for ((i = 0; i + 1 < ${#bench_args[@]}; i++)); do
    [[ "${bench_args[i]}" == --rounds ]] && rounds=${bench_args[i + 1]}
done

csv=$out/scaling.csv
rows=$out/scaling-rows.csv
log=$out/scaling.log
table=$out/scaling-table.txt
rm -f "$csv" "$rows" "$log" "$table"
echo "ranks,collective,bytes,rounds,calls,layer_us,native_us,ratio" > "$rows"
cp "$dev/MANIFEST" "$out/MANIFEST" 2>/dev/null || true

# The MPI copy in .devbench/ finds its own files through these; the
# libraries: the project's, MPI's, then the system ones packed beside them.
export OPAL_PREFIX=$mpi PRTE_PREFIX=$mpi PMIX_PREFIX=$mpi
export LD_LIBRARY_PATH=$dev/lib:$mpi/lib:$dev/syslib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's collective selection must not come from outside.
unset OMPI_MCA_coll
for name in $(compgen -e OMPI_MCA_coll_tuned_ || true); do unset "$name"; done

# ---------------------------------------------------------------- the machine
echo "# nproc: $(nproc)"
echo "# os: $(head -n 1 /etc/os-release 2>/dev/null)"
echo "# kernel: $(uname -r), glibc $(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')"
if command -v lscpu >/dev/null; then
    lscpu | grep -E '^(Model name|Socket\(s\)|Core\(s\) per socket|Thread\(s\) per core|NUMA node\(s\)):' \
        | sed 's/  */ /g; s/^/# /'
else
    grep -m1 'model name' /proc/cpuinfo | sed 's/^/# /'
fi
shm_kb=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
echo "# /dev/shm free: ${shm_kb:-?} KiB"
if [[ -z "$shm_kb" || "$shm_kb" -lt 1048576 ]]; then
    # Open MPI's shared-memory transport keeps its segments there.
    export OMPI_MCA_btl_sm_backing_directory=/tmp
    echo "# /dev/shm small or missing: shared-memory segments in /tmp"
fi
env | grep -E '^(FTCOLL_|OMPI_MCA_|PRTE_MCA_|PMIX_MCA_)' | sed 's/^/# env: /'
sed -n '1,3p' "$dev/MANIFEST" 2>/dev/null | sed 's/^/# /'
echo "# mpi: $("$mpirun" --version 2>&1 | head -n 1)"

ft=()
if "$mpi/bin/ompi_info" 2>/dev/null | grep -q "FT MPI support: yes"; then ft=(--with-ft ulfm); fi
echo "# ULFM: ${ft[*]:-no}"

maxp=0
for p in "${ps[@]}" "${extra_ps[@]}"; do (( p > maxp )) && maxp=$p; done
if [[ -n "${SCALING_LAUNCH:-}" ]]; then
    read -r -a place <<< "$SCALING_LAUNCH"
else
    # One rank per core; where Open MPI counts fewer cores than the largest
    # run needs (hardware threads shown as processors), one per thread.
    place=()
    for option in "--bind-to core --map-by core" \
                  "--use-hwthread-cpus --bind-to hwthread --map-by hwthread"; do
        read -r -a try <<< "$option"
        if timeout -k 3 30 "$mpirun" "${try[@]}" -n "$maxp" uname -n >/dev/null 2>&1; then
            place=("${try[@]}"); break
        fi
        echo "# $maxp ranks do not start with: $option"
    done
    if (( ${#place[@]} == 0 )); then
        place=(--oversubscribe --bind-to none)
        echo "# WARNING: placing $maxp ranks needs oversubscription: results are NOT one rank per core"
    fi
fi
launch=("$mpirun" "${ft[@]}" "${place[@]}")
echo "# launch: ${launch[*]#"$mpi/bin/"} -n P ftcoll-bench-native --only COLL ${bench_args[*]}"

echo "# sanity: mpirun -n 2 uname -n"
timeout -k 3 30 "${launch[@]}" -n 2 uname -n 2>&1 | sed 's/^/#   /'
echo "# sanity: ftcoll-bench-native --only barrier at p = 2"
timeout -k 3 60 "${launch[@]}" -n 2 "$bench" --only barrier --rounds 3 2>&1 | sed 's/^/#   /'
sanity_rc=${PIPESTATUS[0]}
(( sanity_rc == 0 )) || echo "# WARNING: the sanity run failed (status $sanity_rc); trying the runs anyway"
echo "# setup took ${SECONDS}s"

# ---------------------------------------------------------------- the runs
# Processes of this benchmark left behind by a run stopped at its limit.
kill_leftovers() {
    local pid exe
    for pid in /proc/[0-9]*; do
        exe=$(readlink "$pid/exe" 2>/dev/null) || continue
        case "$exe" in
            "$bench"|"$mpi"/bin/*) kill -9 "${pid#/proc/}" 2>/dev/null ;;
        esac
    done
}

skipped=()
failed=()
run_one() {   # P COLLECTIVE
    local p=$1 coll=$2 start=$SECONDS limit rc n tmp
    if (( start >= budget )); then skipped+=("p=$p:$coll"); return; fi
    limit=$(( hard - start ))
    (( limit > run_cap )) && limit=$run_cap
    tmp=$out/.run.tmp
    echo "### p=$p $coll (started at ${start}s, limit ${limit}s)" >> "$log"
    timeout -k 3 "$limit" "${launch[@]}" -n "$p" "$bench" --only "$coll" "${bench_args[@]}" \
        --csv "$csv" > "$tmp" 2>&1
    rc=$?
    cat "$tmp" >> "$log"
    # Rows as printed: collective bytes calls layer_us native_us ratio.
    n=$(awk -v p="$p" -v c="$coll" -v r="$rounds" -v rows="$rows" '
        $1 == c && NF == 6 && $2 ~ /^[0-9]+$/ {
            printf "%d,%s,%d,%d,%d,%s,%s,%s\n", p, c, $2, r, $3, $4, $5, $6 >> rows; n++ }
        END { print n + 0 }' "$tmp")
    rm -f "$tmp"
    local note=""
    if (( rc == 124 || rc == 137 )); then
        note=" STOPPED at its ${limit}s limit"
        kill_leftovers
    elif (( rc != 0 )); then
        note=" FAILED (status $rc; see scaling.log)"
    fi
    (( rc == 0 )) || failed+=("p=$p:$coll")
    printf "# p=%-2d %-20s %2d sizes %4ds (at %3ds)%s\n" "$p" "$coll" "$n" $(( SECONDS - start )) \
        "$SECONDS" "$note"
}

for coll in "${colls[@]}"; do
    for p in "${ps[@]}"; do run_one "$p" "$coll"; done
done
for p in "${extra_ps[@]}"; do
    for coll in "${colls[@]}"; do run_one "$p" "$coll"; done
done
for coll in "${late_colls[@]}"; do
    for p in "${ps[@]}" "${extra_ps[@]}"; do run_one "$p" "$coll"; done
done

# ---------------------------------------------------------------- the table
# One line per rank count and collective, one column per size: ftcoll's
# median time per call / native's (below 1: ftcoll faster).
awk -F, -v order="${colls[*]} ${late_colls[*]}" '
    function label(b) { return b >= 1048576 ? b / 1048576 "M" : b >= 1024 ? b / 1024 "K" : b }
    BEGIN { k = split(order, o, " "); for (i = 1; i <= k; i++) rank_of[o[i]] = i }
    NR == 1 { next }
    {
        key = sprintf("%05d %03d", $1, rank_of[$2]); name[key] = $2; ranks[key] = $1
        ratio[key, $3] = $8; if (!($3 in seen)) { seen[$3] = 1; sizes[++ns] = $3 }
        n[key]++; list[key, n[key]] = $8
        if (!(key in worst) || $8 > worst[key]) worst[key] = $8
    }
    END {
        for (i = 2; i <= ns; i++) {   # sizes ascending
            v = sizes[i]; for (j = i - 1; j >= 1 && sizes[j] > v; j--) sizes[j + 1] = sizes[j]
            sizes[j + 1] = v
        }
        printf "%3s %-20s", "p", "collective"
        for (i = 1; i <= ns; i++) printf " %5s", label(sizes[i])
        printf " %6s %6s\n", "median", "worst"
        nk = 0; for (key in name) keys[++nk] = key
        for (i = 2; i <= nk; i++) {
            v = keys[i]; for (j = i - 1; j >= 1 && keys[j] > v; j--) keys[j + 1] = keys[j]
            keys[j + 1] = v
        }
        for (q = 1; q <= nk; q++) {
            key = keys[q]
            printf "%3d %-20s", ranks[key], name[key]
            for (i = 1; i <= ns; i++) {
                if ((key, sizes[i]) in ratio) {
                    r = ratio[key, sizes[i]]
                    printf " %5s", r < 10 ? sprintf("%.2f", r) : r < 100 ? sprintf("%.1f", r) : ">99"
                } else printf " %5s", "-"
            }
            m = n[key]
            for (i = 1; i <= m; i++) s[i] = list[key, i]
            for (i = 2; i <= m; i++) {
                v = s[i]; for (j = i - 1; j >= 1 && s[j] > v; j--) s[j + 1] = s[j]; s[j + 1] = v
            }
            med = m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
            printf " %6.2f %6.2f\n", med, worst[key]
        }
    }' "$rows" > "$table"

echo
echo "# ratio = ftcoll (through the PMPI layer) / native Open MPI, median time per call of"
echo "# back-to-back blocks; columns: bytes per rank; ${place[*]}; $(nproc) processors"
cat "$table"
echo
(( ${#failed[@]} == 0 )) || echo "# runs not finished normally: ${failed[*]}"
(( ${#skipped[@]} == 0 )) || echo "# skipped, out of time (${budget}s): ${skipped[*]}"
data_rows() { awk 'NR > 1 { n++ } END { print n + 0 }' "$1" 2>/dev/null || echo 0; }
echo "# rows: $(data_rows "$rows") in scaling-rows.csv, $(data_rows "$csv") in scaling.csv" \
     "(a run stopped at its limit leaves its rows in scaling-rows.csv only); total ${SECONDS}s; files in $out"
