#!/usr/bin/env bash
# Reproduces chapter 4 of the thesis behind ftcoll's tree broadcasts: 24
# ranks in the six sites of its Table 4.1, broadcasts from root 12 while
# channels fail and recover on the schedule of each scenario
# (topologies/scenarios/*.topo), for six broadcast algorithms.
#
# Usage: scripts/bench-tree.sh [--build DIR] [--scale S] [--out DIR] [--quick]
#                              [--timeout SECONDS]
#        scripts/bench-tree.sh --report [--out DIR]
#   --build DIR   the build holding bench/ftcoll-bench (default: build of this
#                 repository)
#   --scale S     FTCOLL_TOPOLOGY_SCALE: the table's ms times S are the
#                 emulated ms (default 0.05: 1 ms of the table is 50 us)
#   --out DIR     where the results go (default: bench-results/tree of this
#                 repository)
#   --quick       a fast check: none and failures-2 with 8 broadcasts, twenty
#   --timeout S   the longest one run may take (default 1200; 0: no limit)
#   --report      only rebuild table.md and the charts from DIR/results.txt
# Environment: FTCOLL_MPI_PREFIX (Open MPI installation, default
# $HOME/.cache/ftcoll/openmpi-5.0.7-ulfm).
#
# Algorithms, in this order, for each scenario run:
#   binomial  check=0   MPICH-like: binomial tree, blind to the network
#   two-level check=0   MagPIe-like: the root's site first, one message per site
#   mst       check=0   AGM: the MST built by GHS once, never adapted
#   mst       check=1   AGM-adap: measured again before every broadcast
#   mst       check=4   AGM-adapII: measured again before broadcasts 4, 8, ...
#   tree      check=4   the earliest-completion tree or the MST, whichever is
#                       predicted to finish first; measured every 4 broadcasts
# (the forty scenario runs twice: threshold 0% and threshold=50).
#
# Output in OUT: results.txt (each run's RESULT line, prefixed with the
# scenario run's name), table.md (a table per scenario run and the targets
# T1-T4), chart.png (total time) and bcast.png (broadcast time) with their
# gnuplot script chart.gp and data chart.dat. A run that fails or gives a
# wrong result stops the script (exit 1) with its output.
set -euo pipefail

BENCH_SCRIPT="bench-tree"
# shellcheck source=bench-common.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/bench-common.sh"

readonly RANKS=24 ROOT=12
readonly ALGORITHMS=("binomial check=0" "two-level check=0" "mst check=0" "mst check=1"
                     "mst check=4" "tree check=4")

build=$repo_root/build
scale=0.05
out=$repo_root/bench-results/tree
quick=0
report_only=0
run_timeout=1200

usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; }

while (( $# )); do
    case $1 in
        --build|--scale|--out|--timeout)
            (( $# >= 2 )) || die "$1 needs a value"
            case $1 in
                --build) build=$2 ;;
                --scale) scale=$2 ;;
                --out) out=$2 ;;
                --timeout) run_timeout=$2 ;;
            esac
            shift 2 ;;
        --quick) quick=1; shift ;;
        --report) report_only=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option \"$1\" (see --help)" ;;
    esac
done
if ! [[ "$scale" =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] \
        || ! awk -v s="$scale" 'BEGIN { exit !(s + 0 > 0) }'; then
    die "--scale must be a number > 0, not \"$scale\""
fi
[[ "$run_timeout" =~ ^[0-9]+$ ]] || die "--timeout must be whole seconds, not \"$run_timeout\""
[[ "$build" == /* ]] || build=$PWD/$build
[[ "$out" == /* ]] || out=$PWD/$out

# --- the scenario runs ------------------------------------------------------------
# NAME BCASTS EXTRA-SETTINGS CHANGES DESCRIPTION (one run each; EXTRA "-": none).
# CHANGES: whether any latency differs from Table 4.1 at some broadcast.
scenario_runs() {
    local n
    if (( quick )); then
        echo "none 8 - 0 4.2, Fig 4.4: Table 4.1 unchanged"
        echo "failures-2 8 - 1 4.3, Fig 4.5: (4,6)=4000 and (12,16)=7331.12 from broadcast 1"
        echo "twenty 20 - 1 4.4.1.4, Fig 4.12, Table 4.4: failure (4,6) at 4, recovery (0,2) at 8, failure (12,20) at 12, recovery (12,16) at 16"
        return
    fi
    for n in 4 8 16; do
        echo "none $n - 0 4.2, Fig 4.4: Table 4.1 unchanged"
    done
    for n in 4 8 16; do
        echo "failures-2 $n - 1 4.3, Fig 4.5: (4,6)=4000 and (12,16)=7331.12 from broadcast 1"
    done
    for n in 4 8 16; do
        echo "failures-recoveries $n - 1 4.3, Fig 4.7: failures (4,6)=4000, (12,16)=7331.12; recoveries (0,21), (3,9), (6,12), (13,14) from broadcast 1"
    done
    for n in 8 16; do
        echo "fail-1 $n - 1 4.4.1.1-2, Figs 4.9-4.10: failure (4,6)=6001 from broadcast 1"
        echo "fail-3 $n - 1 4.4.1.1-2, Figs 4.9-4.10: failures (4,6), (12,16), (12,20) from broadcast 1"
        echo "fail-4 $n - 1 4.4.1.1-2, Figs 4.9-4.10: failures (4,6), (12,16), (12,20), (0,2) from broadcast 1"
    done
    echo "rec-1 8 - 1 4.4.1.3, Fig 4.11: (4,6) recovers at broadcast 5"
    echo "rec-3 8 - 1 4.4.1.3, Fig 4.11: (4,6), (12,16), (12,20) recover at broadcast 5"
    echo "rec-4 8 - 1 4.4.1.3, Fig 4.11: (4,6), (12,16), (12,20), (0,2) recover at broadcast 5"
    echo "twenty 20 - 1 4.4.1.4, Fig 4.12, Table 4.4: failure (4,6) at 4, recovery (0,2) at 8, failure (12,20) at 12, recovery (12,16) at 16"
    echo "forty 40 - 1 4.5.1, Fig 4.16 (threshold 0%): failure (4,6) at 8, recoveries (0,2) at 12, (12,16) at 20"
    echo "forty 40 threshold=50 1 4.5.1, Fig 4.16 (threshold 50%): failure (4,6) at 8, recoveries (0,2) at 12, (12,16) at 20 (-27%)"
    echo "twenty-fail-3 20 - 1 4.5.2, Fig 4.17: failures (4,6), (12,16), (12,20) at broadcast 10"
    echo "twenty-rec-3 20 - 1 4.5.3, Fig 4.17: (4,6), (12,16), (12,20) recover at broadcast 11"
    echo "hundred-fail-4 100 - 1 4.5.4, Fig 4.18: failures (4,6), (1,0), (12,16), (8,9) at broadcast 50"
    echo "hundred-rec-4 100 - 1 4.5.4, Fig 4.18: recoveries (6,12), (0,21), (13,14), (3,9) at broadcast 50"
    echo "hundred-both 100 - 1 4.5.5, Fig 4.19: the four failures and four recoveries at broadcast 50"
}

run_label() {   # NAME BCASTS EXTRA
    local label="$1:$2"
    [[ "$3" == threshold=* ]] && label+=":t${3#threshold=}"
    echo "$label"
}

# --- the report -------------------------------------------------------------------
# From results.txt: table.md on stdout; chart.dat (one row per scenario run
# with 8 or more broadcasts and changes: label, six totals, six broadcast times).
# shellcheck disable=SC2016   # awk's $i, not the shell's
readonly REPORT_AWK='
function value(key,    i, kv) {
    for (i = 3; i <= NF; i++) {
        split($i, kv, "=")
        if (kv[1] == key) return substr($i, length(key) + 2)
    }
    return ""
}
function count(key,    v) { v = value(key); return (v == "") ? 0 : v + 0 }
function sum(kinds,    names, n, i, s) {
    n = split(kinds, names, " ")
    s = 0
    for (i = 1; i <= n; i++) s += count(names[i])
    return s
}
function check_of(settings,    parts, n, i) {
    n = split(settings, parts, ",")
    for (i = 1; i <= n; i++) if (parts[i] ~ /^check=/) return substr(parts[i], 7)
    return "0"
}
function secs(x) { return sprintf("%.3f", x) }
function is_adaptive(a) { return a == "mst check=1" || a == "mst check=4" || a == "tree check=4" }
BEGIN {
    CONSTRUCTION = "Connect Initiate Test Accept Reject Report Change-root Gosleep"
    ADAPTATION = "Privilege Failure Reiden Reiden-ack Findmoe Moe-report Moe-change " \
                 "Moe-connect Detach Id-check Recovery Replace Replace-connect Gosleep-rec"
    MONITOR = "Ping Pong"
    nalg = split("binomial check=0|two-level check=0|mst check=0|mst check=1|mst check=4|tree check=4",
                 alg, "|")
    title["binomial check=0"] = "binomial check=0 (MPICH-like)"
    title["two-level check=0"] = "two-level check=0 (MagPIe-like)"
    title["mst check=0"] = "mst check=0 (AGM)"
    title["mst check=1"] = "mst check=1 (AGM-adap)"
    title["mst check=4"] = "mst check=4 (AGM-adapII)"
    title["tree check=4"] = "tree check=4 (ECEF or MST)"
    short["binomial check=0"] = "binomial (MPICH-like)"
    short["two-level check=0"] = "two-level (MagPIe-like)"
    short["mst check=0"] = "MST static (AGM)"
    short["mst check=1"] = "MST check=1 (AGM-adap)"
    short["mst check=4"] = "MST check=4 (AGM-adapII)"
    short["tree check=4"] = "tree check=4"
    nruns = 0
}
/^# conditions: / { conditions = substr($0, 15); next }
/^# run / {
    r = $3
    if (!(r in run_index)) { run_index[r] = ++nruns; run_name[nruns] = r }
    run_changes[r] = $4
    run_desc[r] = $0
    sub(/^# run [^ ]+ [^ ]+ /, "", run_desc[r])
    next
}
$2 == "RESULT" {
    r = $1
    if (!(r in run_index)) { run_index[r] = ++nruns; run_name[nruns] = r; run_changes[r] = 1 }
    a = value("algorithm") " check=" check_of(value("settings"))
    k = r SUBSEP a
    seen[k] = 1
    run_bcasts[r] = value("bcasts") + 0
    build[k] = value("build") + 0
    upkeep[k] = value("monitor") + value("adapt")
    bcast[k] = value("bcast") + 0
    total[k] = value("total") + 0
    changes[k] = value("changes") + 0
    tree[k] = value("tree")
    construction[k] = sum(CONSTRUCTION)
    adaptation[k] = sum(ADAPTATION)
    monitor[k] = sum(MONITOR)
    data[k] = count("Bcast")
    settings[k] = value("settings")
}
END {
    print "# Tree broadcasts over the thesis network (chapter 4)"
    print ""
    print "24 ranks in the six sites of the thesis Table 4.1, root 12, 24-byte broadcasts."
    if (conditions != "") print "Conditions: " conditions "."
    print "Times in seconds, the largest over the ranks; messages summed over the ranks."
    print "monitor+adapt: latency measurements after the first and the adaptation;"
    print "construction: GHS (Connect Initiate Test Accept Reject Report Change-root Gosleep);"
    print "adaptation: Privilege Failure Reiden Reiden-ack Findmoe Moe-report Moe-change Moe-connect"
    print "Detach Id-check Recovery Replace Replace-connect Gosleep-rec; monitor: Ping Pong."
    for (i = 1; i <= nruns; i++) {
        r = run_name[i]
        print ""
        printf "## %s (%d broadcasts)\n\n", r, run_bcasts[r]
        if (run_desc[r] != "") printf "Thesis %s.\n\n", run_desc[r]
        print "| algorithm | build | monitor+adapt | bcast | total | changes | construction msgs | adaptation msgs | monitor msgs | bcast msgs | final tree |"
        print "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"
        for (j = 1; j <= nalg; j++) {
            k = r SUBSEP alg[j]
            if (!(k in seen)) { printf "| %s | not run |||||||||\n", title[alg[j]]; continue }
            printf "| %s | %s | %s | %s | %s | %d | %d | %d | %d | %d | %s |\n", title[alg[j]],
                   secs(build[k]), secs(upkeep[k]), secs(bcast[k]), secs(total[k]), changes[k],
                   construction[k], adaptation[k], monitor[k], data[k], tree[k]
        }
    }

    print ""
    print "## Targets"
    print ""
    # T1: the adaptive algorithms broadcast faster than two-level wherever
    # latencies change.
    t1_n = 0; t1_miss = 0; t1_text = ""
    for (i = 1; i <= nruns; i++) {
        r = run_name[i]
        if (!run_changes[r] || !((r SUBSEP "two-level check=0") in seen)) continue
        base = bcast[r SUBSEP "two-level check=0"]
        for (j = 1; j <= nalg; j++) {
            a = alg[j]; k = r SUBSEP a
            if (!is_adaptive(a) || !(k in seen)) continue
            t1_n++
            if (!(bcast[k] < base)) {
                t1_miss++
                t1_text = t1_text sprintf("  - %s, %s: bcast %s s, two-level %s s\n", r, a,
                                          secs(bcast[k]), secs(base))
            }
        }
    }
    printf "**T1** broadcast time of mst check=1, mst check=4 and tree check=4 below two-level in every scenario run with changes: %s (%d of %d comparisons missed)\n",
           ((t1_miss == 0) ? "PASS" : "MISS"), t1_miss, t1_n
    if (t1_text != "") printf "\n%s", t1_text
    print ""

    # T2: their total time below two-level with 8 or more broadcasts.
    t2_n = 0; t2_miss_c = 0; t2_miss_s = 0; t2_text_c = ""; t2_text_s = ""
    for (i = 1; i <= nruns; i++) {
        r = run_name[i]
        if (run_bcasts[r] < 8 || !((r SUBSEP "two-level check=0") in seen)) continue
        base = total[r SUBSEP "two-level check=0"]
        for (j = 1; j <= nalg; j++) {
            a = alg[j]; k = r SUBSEP a
            if (!is_adaptive(a) || !(k in seen)) continue
            t2_n++
            if (total[k] < base) continue
            line = sprintf("  - %s, %s: total %s s, two-level %s s\n", r, a, secs(total[k]),
                           secs(base))
            if (run_changes[r]) { t2_miss_c++; t2_text_c = t2_text_c line }
            else { t2_miss_s++; t2_text_s = t2_text_s line }
        }
    }
    printf "**T2** total time of mst check=1, mst check=4 and tree check=4 below two-level in every scenario run with 8 or more broadcasts: %s (%d of %d comparisons missed: %d with changes, %d without)\n",
           ((t2_miss_c + t2_miss_s == 0) ? "PASS" : "MISS"), t2_miss_c + t2_miss_s, t2_n,
           t2_miss_c, t2_miss_s
    if (t2_text_c != "") printf "\n  Misses in scenario runs with changes:\n\n%s", t2_text_c
    if (t2_text_s != "") {
        printf "\n  Misses in scenario runs without changes (two-level tree is already the fastest possible from root 12 there, so any measurement costs time):\n\n%s",
               t2_text_s
    }
    print ""

    # T3: GHS builds the MST of 24 ranks in at most 815 messages (the thesis
    # Table 4.3, 4 broadcasts).
    t3_n = 0
    for (i = 1; i <= nruns; i++) {
        k = run_name[i] SUBSEP "mst check=0"
        if (!(k in seen)) continue
        c = construction[k]
        if (t3_n == 0 || c < t3_min) t3_min = c
        if (t3_n == 0 || c > t3_max) t3_max = c
        t3_n++
    }
    if (t3_n)
        printf "**T3** GHS construction messages for 24 ranks (mst check=0, %d runs) <= 815: %s (min %d, max %d)\n",
               t3_n, ((t3_max <= 815) ? "PASS" : "MISS"), t3_min, t3_max
    else
        print "**T3** GHS construction messages: no mst check=0 run"
    print ""

    # T4: the adaptation messages of scenario twenty against the thesis Table
    # 4.4 (AGM-adap: 7583 messages in all, 5075 of them termination detection).
    printf "**T4** messages in scenario twenty (20 broadcasts) against the thesis Table 4.4 (AGM-adap: 7583 in all, construction and Bcast included; its termination detection alone 5075):\n\n"
    t4_n = 0
    for (i = 1; i <= nruns; i++) {
        r = run_name[i]
        if (r !~ /^twenty:/) continue
        for (j = 1; j <= nalg; j++) {
            a = alg[j]; k = r SUBSEP a
            if ((a != "mst check=1" && a != "mst check=4") || !(k in seen)) continue
            t4_n++
            all = construction[k] + adaptation[k] + data[k]
            printf "  - %s: adaptation %d (%s 7583), construction %d, Bcast %d, all but the monitor %d (%s 7583); monitor probes (Ping+Pong) %d\n",
                   a, adaptation[k], ((adaptation[k] < 7583) ? "below" : "NOT below"),
                   construction[k], data[k], all, ((all < 7583) ? "below" : "NOT below"),
                   monitor[k]
        }
    }
    if (!t4_n) print "  - scenario twenty was not run"
    print ""

    # The charts: runs with 8 or more broadcasts and changes.
    printf "run" > chartfile
    for (j = 1; j <= 2 * nalg; j++) printf " \"%s\"", short[alg[(j - 1) % nalg + 1]] > chartfile
    printf "\n" > chartfile
    for (i = 1; i <= nruns; i++) {
        r = run_name[i]
        if (run_bcasts[r] < 8 || !run_changes[r]) continue
        printf "\"%s\"", r > chartfile
        for (j = 1; j <= nalg; j++) {
            k = r SUBSEP alg[j]
            printf " %s", ((k in seen) ? sprintf("%.4f", total[k]) : "NaN") > chartfile
        }
        for (j = 1; j <= nalg; j++) {
            k = r SUBSEP alg[j]
            printf " %s", ((k in seen) ? sprintf("%.4f", bcast[k]) : "NaN") > chartfile
        }
        printf "\n" > chartfile
    }
    close(chartfile)
}'

# chart.gp: two clustered bar charts from chart.dat (columns 2-7 total, 8-13 bcast).
write_gnuplot_script() {   # FILE
    cat > "$1" <<'EOF'
# Clustered bar charts of the tree broadcast runs (scripts/bench-tree.sh):
# gnuplot chart.gp, in the folder that holds chart.dat.
rows = system("wc -l < chart.dat") - 1
width = rows * 95 + 260
set terminal pngcairo size (width < 900 ? 900 : width), 720 font "Sans,11"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 1
set key outside top center horizontal maxrows 2 font ",11"
set logscale y
set format y "%g"
set grid ytics mytics
set xtics rotate by -35 left nomirror font ",11"
set ytics nomirror
set xlabel "scenario run (name:broadcasts[:threshold])"
set bmargin 7
set rmargin 8
set linetype 1 lc rgb "#9e9e9e"
set linetype 2 lc rgb "#f0a030"
set linetype 3 lc rgb "#8fb8e0"
set linetype 4 lc rgb "#2c6fb0"
set linetype 5 lc rgb "#0b3d73"
set linetype 6 lc rgb "#3a9a4a"

# The y axis starts a decade under half the smallest bar, so that none is
# flattened against it.
ymin = 1e30
do for [c=2:7] { stats "chart.dat" every ::1 using c nooutput; if (STATS_min < ymin) { ymin = STATS_min } }
set yrange [10 ** floor(log10(ymin / 2)):*]
set output "chart.png"
set title "Total time (build, measurements, adaptation and broadcasts), 24 ranks, root 12" font ",13"
set ylabel "seconds (log scale)"
plot for [c=2:7] "chart.dat" using c:xtic(1) title columnheader(c)

ymin = 1e30
do for [c=8:13] { stats "chart.dat" every ::1 using c nooutput; if (STATS_min < ymin) { ymin = STATS_min } }
set yrange [10 ** floor(log10(ymin / 2)):*]
set output "bcast.png"
set title "Broadcast time only (moving the data), 24 ranks, root 12" font ",13"
set ylabel "seconds (log scale)"
plot for [c=8:13] "chart.dat" using c:xtic(1) title columnheader(c)
EOF
}

report() {
    local results=$out/results.txt
    [[ -s "$results" ]] || die "no results in $results"
    awk -v chartfile="$out/chart.dat" "$REPORT_AWK" "$results" > "$out/table.md"
    write_gnuplot_script "$out/chart.gp"
    if ! command -v gnuplot > /dev/null; then
        echo "$BENCH_SCRIPT: gnuplot is missing: no charts (Debian: apt-get install gnuplot-nox)" >&2
    elif (( $(wc -l < "$out/chart.dat") < 2 )); then
        echo "$BENCH_SCRIPT: no scenario run with 8 or more broadcasts and changes: no charts"
    else
        (cd "$out" && gnuplot chart.gp)
        echo "charts: $out/chart.png $out/bcast.png"
    fi
    echo "table: $out/table.md"
    echo
    sed -n '/^## Targets/,$p' "$out/table.md"
}

if (( report_only )); then
    report
    exit 0
fi

# --- the runs ---------------------------------------------------------------------
bench_setup "$build/bench/ftcoll-bench" "give --build DIR"
launch=("$mpirun" --oversubscribe --bind-to none -n "$RANKS")
load="$RANKS ranks on $cores cores"
if (( RANKS > cores )); then load="oversubscribed: $load"; fi
timeout_cmd=()
if (( run_timeout > 0 )); then timeout_cmd=(timeout --kill-after=30 "$run_timeout"); fi
export FTCOLL_TOPOLOGY_SCALE=$scale

cd "$repo_root"
mkdir -p "$out"
results=$out/results.txt
log=$(mktemp)
trap 'rm -f "$log"' EXIT
mapfile -t runs < <(scenario_runs)
total_runs=$(( ${#runs[@]} * ${#ALGORITHMS[@]} ))
commit=$(git -C "$repo_root" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
    echo "# bench-tree $(date -u '+%Y-%m-%d %H:%M:%S UTC'), repository at commit $commit;" \
         "ftcoll-bench: $bench (built $(date -u -r "$bench" '+%Y-%m-%d %H:%M:%S UTC'))"
    echo "# conditions: scale=$scale (FTCOLL_TOPOLOGY_SCALE), ranks=$RANKS, root=$ROOT, $load, MPI: $mpi_version, launch: ${launch[*]:1}"
} > "$results"
cat "$results"

started=$SECONDS
done_runs=0
for entry in "${runs[@]}"; do
    read -r name bcasts extra has_changes description <<< "$entry"
    topology=topologies/scenarios/$name.topo
    [[ -f "$topology" ]] || die "no scenario file $topology"
    label=$(run_label "$name" "$bcasts" "$extra")
    echo "# run $label $has_changes $description" >> "$results"
    echo
    echo "== $label: $description"
    for algorithm in "${ALGORITHMS[@]}"; do
        read -r alg settings <<< "$algorithm"
        [[ "$extra" != - ]] && settings+=",$extra"
        done_runs=$((done_runs + 1))
        command=("${timeout_cmd[@]}" "${launch[@]}" "$bench" tree --topology "$topology"
                 --algorithm "$alg" --settings "$settings" --bcasts "$bcasts" --root "$ROOT")
        run_start=$SECONDS
        status=0
        "${command[@]}" > "$log" 2>&1 || status=$?
        line=$(grep -m 1 '^RESULT ' "$log" || true)
        if (( status != 0 )) || [[ -z "$line" ]]; then
            {
                echo "$BENCH_SCRIPT: $label, $alg $settings failed (exit status $status$( ((status == 124)) && echo ": over --timeout $run_timeout s"))"
                echo "  command: FTCOLL_TOPOLOGY_SCALE=$scale ${command[*]}"
                echo "  its output (last 40 lines):"
                tail -n 40 "$log" | sed 's/^/    /'
            } >&2
            echo "# FAILED $label $alg $settings: exit status $status" >> "$results"
            exit 1
        fi
        echo "$label $line" >> "$results"
        printf '[%3d/%d] %-14s %-20s %s (%d s)\n' "$done_runs" "$total_runs" "$label" \
               "$alg $settings" "$(grep -o 'bcast=[0-9.]* total=[0-9.]* changes=[0-9]*' <<< "$line")" \
               $((SECONDS - run_start))
    done
done
elapsed=$((SECONDS - started))
echo "# finished: $total_runs runs in $elapsed s" >> "$results"
echo
echo "$total_runs runs in $elapsed s; results: $results"
report
