#!/usr/bin/env python3
"""External-kill torture for ftcoll's fault-tolerant allreduce.

Runs J jobs over process counts p; in each, ranks making back-to-back
allreduce calls (torture_api through ftcoll's API under mpirun, or the plain
MPI program torture_pmpi under ftcrun) are SIGKILLed BY PID FROM OUTSIDE at
random instants while the calls run. Every survivor checks every element of
every result against the exact value over the set S its call reports, and
prints one result line; this driver judges each job:

  CORRECT  the launcher ended within the time limit, every rank not killed
           printed its line with wrong=0 errors=0, the survivors' digests
           are equal, the ranks reported dead are exactly those killed, the
           last S is exactly the survivors, and at least 3 tag windows of
           calls followed the last death
  WRONG    a wrong element, S, dead set or digest (also if the job then hung)
  HANG     the time limit passed (the whole job is then killed)
  ERROR    an error returned, a missing result line, a crash, sanitizer
           output, a launcher failure
  SHORT    otherwise correct, but fewer than 3 tag windows of calls
           followed the last death (or a kill came after the rank was done):
           the job did not test what it should; counted as failed

Python 3 standard library only. See tests/torture/README.md.
"""

import argparse
import math
import mmap
import os
import random
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

DEFAULT_RANKS = [2, 3, 4, 5, 7, 8, 12, 16]
TAG_WINDOW = 128           # FTCOLL_TAG_WINDOW for every job (--tag-window): its minimum
WINDOWS_AFTER_DEATH = 3    # tag windows of calls that must follow the last death
KILL_SHARE = 0.6           # kills fall in this first share of the calls
ALLGATHER_ALGORITHMS = ["linear", "bruck", "recursive_doubling", "ring", "neighbor_exchange",
                        "two_proc", "sparbit"]
BCAST_TREES = ["binomial", "two-level", "mst", "ecef", "tree"]
# Half the tree jobs re-measure the latencies (milliseconds each): their
# calls are calibrated apart, over the MST
MEASURING_TREE = "check=64"
ALLGATHERV_ALGORITHMS = ["linear", "bruck", "ring", "neighbor_exchange", "two_proc", "sparbit"]
GATHER_ALGORITHMS = ["basic_linear", "binomial", "linear_sync"]
SCATTER_ALGORITHMS = ["basic_linear", "binomial"]
REDUCE_SCATTER_ALGORITHMS = ["allreduce", "recursive_halving"]
ALLTOALL_ALGORITHMS = ["linear", "pairwise", "modified_bruck"]
PMPI_COMMS = ["world", "dup", "split", "late"]   # torture_pmpi's TORTURE_COMM, drawn per job
CALIBRATION_CALLS = 400
MAX_CALLS = 50000

RESULT_LINE = re.compile(
    r"^torture rank=(?P<rank>\d+) p=(?P<p>\d+) calls=(?P<calls>\d+) done=(?P<done>\d+) "
    r"wrong=(?P<wrong>\d+) errors=(?P<errors>\d+) digest=(?P<digest>[0-9a-f]+) "
    r"last_failure_call=(?P<last>\d+) dead=(?P<dead>\S+) S=(?P<s>[0-9a-f]+) "
    r"loop_s=(?P<loop>[0-9.]+)", re.M)
CRASH_MARKERS = re.compile(
    r"AddressSanitizer|LeakSanitizer|runtime error:|Process received signal|"
    r"MPI_ABORT was invoked|Segmentation fault|core dumped")
# ftcrun's summary: "failures survived: rank(s) 2, 5" or "failures survived: none"
FTCRUN_DEAD = re.compile(r"failures survived: (?:rank\(s\) )?([0-9, ]+|none)")


# ---- options ---------------------------------------------------------------------

def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    default_build = os.path.normpath(os.path.join(here, "..", "..", "build"))
    default_prefix = os.environ.get(
        "FTCOLL_MPI_PREFIX", os.path.expanduser("~/.cache/ftcoll/openmpi-5.0.7-ulfm"))
    ap = argparse.ArgumentParser(
        description="SIGKILL ranks from outside during back-to-back fault-tolerant "
                    "allreduce calls and judge every survivor's results.")
    ap.add_argument("--jobs", type=int, default=20, help="jobs to run (default 20)")
    ap.add_argument("--seed", type=int, default=None,
                    help="random seed (default: from the clock; printed for replay)")
    ap.add_argument("--job", type=int, default=None,
                    help="replay only job K (0-based) of --seed")
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="seconds a job may run beyond twice its failure-free time (its "
                         "calls x the calibration's time per call) before it counts as a "
                         "HANG (default 60)")
    ap.add_argument("--build", default=default_build,
                    help="the build directory: ftcrun, tests/torture_api, tests/torture_pmpi")
    ap.add_argument("--mpi-prefix", default=default_prefix,
                    help="the ULFM Open MPI prefix (default $FTCOLL_MPI_PREFIX or "
                         "~/.cache/ftcoll/openmpi-5.0.7-ulfm)")
    ap.add_argument("--ranks", default=",".join(map(str, DEFAULT_RANKS)),
                    help="comma-separated process counts (default %(default)s)")
    ap.add_argument("--pmpi-share", type=float, default=0.25,
                    help="share of jobs running torture_pmpi under ftcrun (default 0.25)")
    ap.add_argument("--keep-logs", default=None,
                    help="keep the full logs of failing jobs in this directory")
    ap.add_argument("--loop-seconds", type=float, default=1.0,
                    help="how long each job's calls run when nobody dies; sets the "
                         "number of calls per p from a calibration run (default 1.0)")
    ap.add_argument("--calls", type=int, default=0,
                    help="calls per job (default: from --loop-seconds and the calibration); "
                         "with --job, the job line's calls=N aims at the same calls")
    ap.add_argument("--tag-window", type=int, default=TAG_WINDOW,
                    help="FTCOLL_TAG_WINDOW for the jobs: calls in the allreduce's tag "
                         "window; at least 3 windows of calls must follow the last death "
                         "(default %(default)s)")
    ap.add_argument("--length", type=int, default=0,
                    help="one fixed vector length for every call (default: cycle)")
    ap.add_argument("--collective", choices=["allreduce", "bcast", "allgather", "allgatherv", "gather",
                             "gatherv", "scatterv", "reduce", "alltoall", "alltoallv",
                             "reduce_scatter", "scan"],
                    default="allreduce",
                    help="what torture_api calls back to back: ftc_allreduce (with a "
                         "broadcast and a barrier every 16 calls), ftc_bcast from "
                         "varying roots, runs of seventy small ones (1 .. 256 doubles), "
                         "then 1000 and 100000 doubles, or ftc_allgather of 1 .. 4096 "
                         "ints per block, every other call in place, or ftc_allgatherv of "
                         "such blocks, some shorter or empty, in reverse rank order, "
                         "or ftc_gather of such blocks to a root that moves from call to "
                         "call, or ftc_gatherv of the allgatherv's blocks to such a root, "
                         "or ftc_scatterv of them from such a root, or ftc_reduce of the "
                         "allreduce's vectors to such a root, or ftc_alltoall of such "
                         "blocks, every other call in place, or ftc_alltoallv of blocks "
                         "some shorter or empty, or ftc_reduce_scatter(_block) of the "
                         "allreduce's vectors, or ftc_scan and ftc_exscan of them "
                         "(default allreduce)")
    ap.add_argument("--bcast-trees", type=float, default=0.0,
                    help="share of jobs whose broadcasts run over a network tree "
                         "(FTCOLL_BCAST: binomial, two-level, mst, ecef or tree; half of "
                         "them re-measuring the latencies every 64 broadcasts) (default 0)")
    ap.add_argument("--comm", choices=["mixed"] + PMPI_COMMS + ["churn"], default="mixed",
                    help="torture_pmpi's communicator (TORTURE_COMM): drawn per job among "
                         "world, dup, split and late (mixed), or this one for every job; "
                         "churn makes, uses and frees a duplicate every 8 calls "
                         "(default mixed)")
    ap.add_argument("--keep-all", action="store_true",
                    help="with --keep-logs: keep every job's log, not only failing ones'")
    ap.add_argument("--verbose", action="store_true", help="print every job's reasons")
    args = ap.parse_args(argv)
    args.ranks = [int(x) for x in args.ranks.split(",") if x.strip()]
    if args.tag_window < TAG_WINDOW:
        ap.error("--tag-window: at least %d (FTCOLL_TAG_WINDOW's minimum)" % TAG_WINDOW)
    if not args.ranks or min(args.ranks) < 2:
        ap.error("--ranks: process counts of at least 2")
    if args.seed is None:
        args.seed = int(time.time() * 1000) % 1000000007
    args.api = os.path.join(args.build, "tests", "torture_api")
    args.pmpi = os.path.join(args.build, "tests", "torture_pmpi")
    args.ftcrun = os.path.join(args.build, "ftcrun")
    args.mpirun = os.path.join(args.mpi_prefix, "bin", "mpirun")
    for path in (args.api, args.mpirun) + ((args.pmpi, args.ftcrun) if args.pmpi_share > 0
                                            else ()):
        if not os.access(path, os.X_OK):
            ap.error("not found or not executable: %s" % path)
    return args


def job_environment(args):
    """The launcher's environment: the relocated ULFM tree, root allowed,
    no stray FTCOLL_* setting of the caller's, the tag window of --tag-window."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FTCOLL_")}
    prefix = args.mpi_prefix
    env.update(OPAL_PREFIX=prefix, PRTE_PREFIX=prefix, PMIX_PREFIX=prefix,
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               FTCOLL_TAG_WINDOW=str(args.tag_window),
               FTCOLL_MPIRUN_ARGS="--oversubscribe --bind-to none")
    lib = os.path.join(prefix, "lib")
    old = os.environ.get("LD_LIBRARY_PATH", "")
    env["LD_LIBRARY_PATH"] = lib + (":" + old if old else "")
    return env


# ---- one launch --------------------------------------------------------------------

def command_for(args, program, p, calls, after):
    tail = [str(calls)] + (["--length", str(args.length)] if args.length else [])
    if program == "api":
        return [args.mpirun, "--with-ft", "ulfm", "--oversubscribe", "--bind-to", "none",
                "-n", str(p), args.api] + tail + ["--after", after,
                                                  "--collective", args.collective]
    return [args.ftcrun, "-n", str(p), "--mpirun", args.mpirun, "--", args.pmpi] + tail


def read_pids(prefix, p, deadline):
    """rank -> pid from the ranks' pid files (written before the marker)."""
    pids = {}
    while len(pids) < p and time.monotonic() < deadline:
        for r in range(p):
            if r in pids:
                continue
            try:
                with open("%s.%d" % (prefix, r)) as f:
                    rank, pid = f.read().split()
                pids[int(rank)] = int(pid)
            except (OSError, ValueError):
                pass
        if len(pids) < p:
            time.sleep(0.001)
    return pids


def is_our_rank(pid, program_path):
    """The pid still runs one of our ranks (not a reused pid, not a zombie)."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmdline = f.read()
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return os.path.basename(program_path).encode() in cmdline and state != "Z"


def kill_everything(proc, pids, program_path):
    """The launcher's process group and every rank (each rank has its own)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    for pid in pids.values():
        if is_our_rank(pid, program_path):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def spin_for(seconds):
    """Waits a short time precisely (sleep's granularity is too coarse)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


class Progress:
    """The ranks' call counters: TORTURE_MAX_RANKS little-endian int64 slots
    in a file each rank maps (tests/torture/torture_launch.c)."""
    SLOTS = 64

    def __init__(self, path):
        self.path = path
        with open(path, "wb") as f:
            f.write(b"\0" * 8 * self.SLOTS)
        self.file = open(path, "rb")
        self.map = mmap.mmap(self.file.fileno(), 8 * self.SLOTS, access=mmap.ACCESS_READ)

    def call_of(self, rank):
        return struct.unpack_from("<q", self.map, 8 * rank)[0]

    def close(self):
        self.map.close()
        self.file.close()


def wait_for_call(progress, rank, target, proc, pid, program_path, deadline):
    """Polls until `rank` enters call `target`. Returns None when it has, or
    why it never will (the job ended, the rank is gone, the time is up)."""
    polls = 0
    while progress.call_of(rank) < target:
        polls += 1
        if polls % 100 == 0:
            why = ("the launcher ended" if proc.poll() is not None
                   else "time limit" if time.monotonic() > deadline
                   else "the rank is gone" if not is_our_rank(pid, program_path) else None)
            if why:
                return "%s at call %d" % (why, progress.call_of(rank))
        time.sleep(0.0002)
    return None


def run_kills(kills, progress, pids, proc, program_path, deadline, t0, result):
    """Carries out kill_schedule's list. Waiting for the victim's own call
    counter, not for a time, keeps the kills within the calls however fast
    the calls run on a busy machine."""
    for target, _, delay, chained, rank in kills:
        pid = pids.get(rank)
        missed = "no pid file" if pid is None else None
        if not missed and not chained:
            missed = wait_for_call(progress, rank, target, proc, pid, program_path, deadline)
        if not missed:
            spin_for(delay)
            try:
                if not is_our_rank(pid, program_path):
                    raise ProcessLookupError
                os.kill(pid, signal.SIGKILL)
                result["killed"][rank] = (time.monotonic() - t0, progress.call_of(rank))
                continue
            except ProcessLookupError:
                missed = "the rank had exited"
        result["killed"][rank] = None
        result.setdefault("missed", {})[rank] = missed


# Between the stacks and the main thread's frames with their locals
# (what a call knew: its epoch, number, plan) in gdb's output.
LOCALS_MARK = "==== locals"


def where_ranks_hang(pids, progress, program_path, killed):
    """What a hung job's ranks were doing: each live rank's call counter
    and every thread's stack (gdb, when installed), so that a hang seen
    once can be understood without replaying it."""
    lines, gdbs = [], {}
    alive_pids = [pid for rank, pid in pids.items()
                  if killed.get(rank) is None and is_our_rank(pid, program_path)]
    for pid in alive_pids:   # one consistent picture: nobody moves on meanwhile
        try:
            os.kill(pid, signal.SIGSTOP)
        except OSError:
            pass
    for rank, pid in sorted(pids.items()):
        alive = pid in alive_pids
        lines.append("rank %d pid %d: %s, call %d" % (
            rank, pid, "alive" if alive else "gone", progress.call_of(rank)))
        if alive:
            try:
                gdbs[rank] = subprocess.Popen(
                    ["gdb", "-p", str(pid), "-batch", "-nx", "-ex", "thread apply all bt",
                     "-ex", "echo %s\\n" % LOCALS_MARK, "-ex", "thread 1",
                     "-ex", "bt full 20"],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL)
            except OSError:
                break   # no gdb: the counters alone
    for rank, gdb in sorted(gdbs.items()):
        try:
            out = gdb.communicate(timeout=60)[0].decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            gdb.kill()
            out = gdb.communicate()[0].decode("utf-8", "replace")
        stacks, _, locals_ = out.partition(LOCALS_MARK)
        frames = [l for l in stacks.splitlines() if l.startswith(("#", "Thread "))]
        lines.append("---- rank %d stacks\n%s" % (rank, "\n".join(frames)))
        lines.append("---- rank %d main thread's locals\n%s" % (rank, locals_.strip()))
    return "\n".join(lines)


def launch(args, env, workdir, program, p, calls, after, kills, expected=0.0):
    """Runs one job. kills: kill_schedule's list. expected: its failure-free
    seconds (calls x the calibration's time per call): the time limit
    starts past twice that, so that a large job on a slow or busy machine
    is not taken for a hung one. Returns a dict with
    the launcher's exit code, timed_out, the logs, the kills done (rank ->
    (seconds after the marker, the call the victim was in), or None when it
    never reached its call or was gone)."""
    pid_prefix = os.path.join(workdir, "pid")
    marker = os.path.join(workdir, "started")
    progress = Progress(os.path.join(workdir, "progress"))
    env = dict(env, TORTURE_PIDS=pid_prefix, TORTURE_STARTED=marker,
               TORTURE_PROGRESS=progress.path)
    out_path = os.path.join(workdir, "stdout")
    err_path = os.path.join(workdir, "stderr")
    program_path = args.api if program == "api" else args.pmpi
    cmd = command_for(args, program, p, calls, after)
    start = time.monotonic()
    deadline = start + 2 * expected + args.time_limit
    result = {"cmd": cmd, "killed": {}, "timed_out": False, "started": False, "rc": None}
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                env=env, start_new_session=True)
        pids = {}
        try:
            while not os.path.exists(marker) and proc.poll() is None \
                    and time.monotonic() < deadline:
                time.sleep(0.0005)
            t0 = time.monotonic()
            if os.path.exists(marker):
                result["started"] = True
                pids = read_pids(pid_prefix, p, min(deadline, t0 + 5))
                run_kills(kills, progress, pids, proc, program_path, deadline, t0, result)
            result["rc"] = proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            result["timed_out"] = True
            result["hang"] = where_ranks_hang(pids, progress, program_path, result["killed"])
        finally:
            leftovers = [r for r, pid in pids.items()
                         if r not in result["killed"] and is_our_rank(pid, program_path)]
            kill_everything(proc, pids, program_path)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            progress.close()
            # ranks still running after the launcher returned: left behind
            if not result["timed_out"]:
                time.sleep(0.05)
                result["leftover"] = [r for r in leftovers if is_our_rank(pids[r], program_path)]
            else:
                result["leftover"] = []
    result["seconds"] = time.monotonic() - start
    with open(out_path, "rb") as f:
        result["stdout"] = f.read().decode("utf-8", "replace")
    with open(err_path, "rb") as f:
        result["stderr"] = f.read().decode("utf-8", "replace")
    return result


# ---- judging a job ----------------------------------------------------------------

def parse_lines(text):
    lines = {}
    for m in RESULT_LINE.finditer(text):
        d = m.groupdict()
        lines[int(d["rank"])] = d
    return lines


def rank_list(mask_or_set):
    return ",".join(str(r) for r in sorted(mask_or_set)) or "-"


def judge(program, p, calls, res, tag_window):
    """(verdict, reasons) for one job's launch."""
    wrong, errors, short = [], [], []
    lines = parse_lines(res["stdout"])
    stderr = res["stderr"]
    signalled = {r for r, t in res["killed"].items() if t is not None}
    missed = {r for r, t in res["killed"].items() if t is None}
    # A rank that printed its result line had finished when the kill came:
    # it counts as a survivor (and the job as SHORT, below).
    late = signalled & set(lines)
    killed = signalled - late
    survivors = set(range(p)) - killed

    if not res["started"] and not res["timed_out"]:
        errors.append("the calls never started (launcher exited %s)" % res["rc"])
    for r in sorted(survivors):
        if r not in lines:
            errors.append("rank %d printed no result line" % r)
    for r in sorted(late):
        short.append("rank %d was killed after it had finished" % r)
    if res["started"] and not res["timed_out"]:
        for r in sorted(missed):
            short.append("rank %d was not killed: %s" % (r, res.get("missed", {}).get(r)))
    for r, d in sorted(lines.items()):
        if int(d["wrong"]):
            wrong.append("rank %d: wrong=%s" % (r, d["wrong"]))
        if int(d["errors"]):
            errors.append("rank %d: errors=%s (done %s of %s)" % (r, d["errors"], d["done"],
                                                                 d["calls"]))
    seen = {r: d for r, d in lines.items() if r in survivors}
    # After an error the ranks stopped at different calls: their digests,
    # S and dead sets say nothing more.
    clean = not errors and all(int(d["errors"]) == 0 for d in seen.values())
    digests = {d["digest"] for d in seen.values()}
    if clean and len(digests) > 1:
        wrong.append("digests differ among the survivors: %s" % " ".join(
            "%d:%s" % (r, d["digest"][:8]) for r, d in sorted(seen.items())))
    if clean:
        for r, d in sorted(seen.items()):
            s = {q for q in range(p) if (int(d["s"], 16) >> q) & 1}
            if s != survivors:
                wrong.append("rank %d: last S = {%s}, the survivors are {%s}"
                             % (r, rank_list(s), rank_list(survivors)))
            if program == "api":
                dead = set() if d["dead"] == "-" else {int(x) for x in d["dead"].split(",")}
                if not killed <= dead <= signalled:
                    wrong.append("rank %d: reported dead {%s}, killed {%s}"
                                 % (r, rank_list(dead), rank_list(killed)))
    if program == "pmpi" and clean and res["rc"] is not None:
        m = FTCRUN_DEAD.search(stderr)
        dead = set() if not m or m.group(1) == "none" else {
            int(x) for x in m.group(1).replace(" ", "").split(",") if x}
        if not m:
            errors.append("ftcrun printed no summary")
        elif not killed <= dead <= signalled:
            wrong.append("ftcrun: failures survived {%s}, killed {%s}"
                         % (rank_list(dead), rank_list(killed)))
    crash = CRASH_MARKERS.search(stderr)
    if crash:
        errors.append("stderr: %s" % stderr[max(0, crash.start() - 60):crash.end() + 60]
                      .replace("\n", " | "))
    if res["rc"] not in (None, 0) and not res["timed_out"]:
        errors.append("the launcher exited %d" % res["rc"])
    if res.get("leftover"):
        errors.append("rank(s) %s still ran after the launcher ended"
                      % rank_list(res["leftover"]))
    if killed and seen and clean:
        last = max(int(d["last"]) for d in seen.values())
        done = min(int(d["done"]) for d in seen.values())
        if last == 0:
            short.append("no survivor's call saw a failure")
        elif done - last < WINDOWS_AFTER_DEATH * tag_window:
            short.append("only %d calls after the last failure (call %d); %d needed"
                         % (done - last, last, WINDOWS_AFTER_DEATH * tag_window))
    for line in stderr.splitlines():
        if re.match(r"(MISMATCH|FAIL|ERROR)\b", line):
            (wrong if not line.startswith("ERROR") else errors).append(line.strip())
            break
    # A wrong result reported as success is the worst outcome: it decides
    # the verdict even when the job then hung.
    if wrong:
        hung = ["the time limit passed"] if res["timed_out"] else []
        return "WRONG", wrong + hung + errors + short
    if res["timed_out"]:
        return "HANG", errors + short
    if errors:
        return "ERROR", errors + short
    if short:
        return "SHORT", short
    return "CORRECT", []


# ---- planning jobs ----------------------------------------------------------------

def plan_job(args, job):
    """Everything random about job K, from (seed, K) alone: replayable."""
    rng = random.Random("%d:%d" % (args.seed, job))
    p = rng.choice(args.ranks)
    program = "pmpi" if rng.random() < args.pmpi_share else "api"
    after = rng.choice(["none", "allgather", "survivors", "both"])
    max_kills = 1 if p == 2 else min(3, p - 1)
    k = rng.randint(1, max_kills)
    variations = ["uniform", "rank0"] + (["partners", "close"] if k >= 2 else [])
    variation = rng.choice(variations)
    others = list(range(p))
    if variation == "rank0":
        victims = [0] + rng.sample(range(1, p), k - 1)
    elif variation == "partners":
        # partners of one recursive-doubling step: r and r xor 1, or r xor 2
        distances = [d for d in (1, 2) if any((r ^ d) < p for r in range(p))]
        d = rng.choice(distances)
        r = rng.choice([x for x in range(p) if (x ^ d) < p])
        victims = [r, r ^ d]
        victims += rng.sample([x for x in others if x not in victims], k - 2)
    else:
        victims = rng.sample(others, k)
    fractions = [rng.uniform(0.0, KILL_SHARE) for _ in victims]
    jitters = [rng.random() for _ in victims]   # where inside its call a victim dies
    gaps = [None] * k   # seconds after the first victim, for kills that go together
    if variation == "close" or (variation == "partners" and rng.random() < 0.5):
        gaps[1] = rng.uniform(0.0, 0.001)   # the second victim within 1 ms of the first
    # a third of the jobs force the broadcast's scatter + ring, which the
    # default plan keeps for 1 MiB and more on 16 ranks or more
    bcast_plan = "scatter_ring" if rng.random() < 1 / 3 else "auto"
    # and a third keep copies of large broadcasts instead of confirming, as
    # the default does where every rank has a processor of its own
    bcast_confirm = "off" if rng.random() < 1 / 3 else "auto"
    # half the jobs force one allgather algorithm, whatever p and the sizes
    allgather = rng.choice(ALLGATHER_ALGORITHMS) if rng.random() < 0.5 else "auto"
    allgatherv = rng.choice(ALLGATHERV_ALGORITHMS) if rng.random() < 0.5 else "auto"
    gather = rng.choice(GATHER_ALGORITHMS) if rng.random() < 0.5 else "auto"
    alltoall = rng.choice(ALLTOALL_ALGORITHMS) if rng.random() < 0.5 else "auto"
    # drawn last, so that the draws above stay those of earlier versions
    bcast_tree = rng.choice(BCAST_TREES) if rng.random() < args.bcast_trees else "auto"
    tree_settings = MEASURING_TREE if rng.random() < 0.5 else ""
    scatter = rng.choice(SCATTER_ALGORITHMS) if rng.random() < 0.5 else "auto"
    reduce_scatter = rng.choice(REDUCE_SCATTER_ALGORITHMS) if rng.random() < 0.5 else "auto"
    # torture_pmpi's communicator: MPI_COMM_WORLD, or one the layer meets
    # first in the loop (TORTURE_COMM), freed after the deaths
    comm = rng.choice(PMPI_COMMS)
    return {"comm": comm, "scatter": scatter, "reduce_scatter": reduce_scatter, "bcast_tree": bcast_tree, "tree_settings": tree_settings,
            "job": job, "p": p, "program": program, "after": after, "variation": variation,
            "victims": victims, "fractions": fractions, "jitters": jitters, "gaps": gaps,
            "bcast_plan": bcast_plan, "bcast_confirm": bcast_confirm, "allgather": allgather,
            "allgatherv": allgatherv, "gather": gather, "alltoall": alltoall}


def kill_schedule(plan, calls, seconds_per_call):
    """[(target call, order, delay s, chained, rank)], in the order of the
    kills: a victim dies `delay` (a random part of a call's time) after it
    enters its target call; a chained victim, which goes with the first one,
    dies `delay` (its gap, < 1 ms) after the kill before it."""
    out = []
    for i, rank in enumerate(plan["victims"]):
        gap = plan["gaps"][i]
        if gap is None:
            target = max(1, int(plan["fractions"][i] * calls))
            out.append((target, i, plan["jitters"][i] * seconds_per_call, False, rank))
        else:
            target = max(1, int(plan["fractions"][0] * calls))
            out.append((target, 0.5, gap, True, rank))   # right after victim 0
    return sorted(out)


# ---- calibration --------------------------------------------------------------------

def calibrate(args, env, program, p):
    """A failure-free run: seconds per call, and its own verdict."""
    with tempfile.TemporaryDirectory(prefix="torture-cal-") as workdir:
        res = launch(args, env, workdir, program, p, CALIBRATION_CALLS, "both", [])
    verdict, reasons = judge(program, p, CALIBRATION_CALLS, res, args.tag_window)
    loops = [float(d["loop"]) for d in parse_lines(res["stdout"]).values()]
    per_call = max(loops) / CALIBRATION_CALLS if loops else None
    return per_call, verdict, reasons, res


def calls_for(args, per_call):
    """Enough calls to run --loop-seconds, and so many that the calls after
    the kill window hold the needed tag windows twice over."""
    if args.calls:
        return args.calls
    floor = math.ceil(2 * WINDOWS_AFTER_DEATH * args.tag_window / (1 - KILL_SHARE))
    wanted = math.ceil(args.loop_seconds / per_call) if per_call else floor
    return max(floor, min(MAX_CALLS, wanted))


# ---- reporting ----------------------------------------------------------------------

def keep_log(args, name, res, header):
    if not args.keep_logs:
        return None
    os.makedirs(args.keep_logs, exist_ok=True)
    path = os.path.join(args.keep_logs, name)
    with open(path, "w") as f:
        f.write(header + "\n")
        f.write("command: %s\n" % " ".join(res["cmd"]))
        f.write("launcher exit: %s, timed out: %s, %.1f s\n"
                % (res["rc"], res["timed_out"], res["seconds"]))
        f.write("==== stdout\n" + res["stdout"] + "==== stderr\n" + res["stderr"])
        if res.get("hang"):
            f.write("==== where the ranks were when the time limit passed\n" + res["hang"] + "\n")
    return path


def ftcoll_frames(hang, per_rank=8):
    """Each hung rank's innermost frames of ftcoll and MPI, one line a
    rank: the log may not outlive the machine that ran the job (CI), so
    the printed verdict carries where each rank waited."""
    lines = []
    for section in hang.split("---- ")[1:]:
        head, _, body = section.partition("\n")
        names = []
        for frame in body.splitlines():
            match = re.search(r" in (\w+) \(.*?\)(?: at (\S+))?", frame)
            if match and match.group(1).startswith(("ftc", "MPI", "PMPI", "torture", "main")):
                where = os.path.basename(match.group(2) or "")
                names.append(match.group(1) + ("@" + where if where else ""))
        if names:
            lines.append("%s: %s" % (head.replace(" stacks", ""), " < ".join(names[:per_rank])))
    return lines


def describe_kills(res, schedule):
    parts = []
    for target, _, _, _, rank in schedule:
        done = res["killed"].get(rank)
        if done is not None:
            parts.append("r%d@call%d/%.3fs" % (rank, done[1], done[0]))
        else:
            parts.append("r%d@call%d(%s)" % (rank, target, "missed" if res["started"]
                                              else "not started"))
    return " ".join(parts)


VERDICTS = ["CORRECT", "WRONG", "ERROR", "HANG", "SHORT"]


def print_table(results, ranks):
    print()
    print("%-6s %6s %8s %6s %7s %6s %6s" % ("p", "jobs", "correct", "wrong", "errors",
                                           "hangs", "short"))
    totals = {v: 0 for v in VERDICTS}
    for p in ranks:
        mine = [v for q, v in results if q == p]
        if not mine:
            continue
        counts = {v: mine.count(v) for v in VERDICTS}
        for v in VERDICTS:
            totals[v] += counts[v]
        print("%-6d %6d %8d %6d %7d %6d %6d" % (p, len(mine), counts["CORRECT"],
                                               counts["WRONG"], counts["ERROR"],
                                               counts["HANG"], counts["SHORT"]))
    print("%-6s %6d %8d %6d %7d %6d %6d" % ("total", len(results), totals["CORRECT"],
                                           totals["WRONG"], totals["ERROR"], totals["HANG"],
                                           totals["SHORT"]))


class Calibrator:
    """Seconds per call for (program, process count), measured once each by
    a failure-free run when first needed: it sets the jobs' number of calls
    and how far into its call a victim dies."""

    def __init__(self, args, env):
        self.args, self.env = args, env
        self.per_call = {}
        self.failures = 0

    def seconds_per_call(self, program, p, measuring=False):
        key = (program, p, measuring)
        if key not in self.per_call:
            env = dict(self.env, FTCOLL_BCAST="mst", FTCOLL_TREE=MEASURING_TREE) \
                if measuring else self.env
            per_call, verdict, reasons, res = calibrate(self.args, env, program, p)
            print("calibration %s p=%d%s: %s, %.3f ms per call" % (
                program, p, " FTCOLL_TREE=" + MEASURING_TREE if measuring else "", verdict,
                (per_call or 0) * 1e3))
            if verdict != "CORRECT":
                self.failures += 1
                for reason in reasons[:5]:
                    print("    " + reason[:300])
                kept = keep_log(self.args, "calibration-%s-p%02d.log" % key[:2], res,
                                "calibration %s p=%d (no kills): %s" % (program, p, verdict))
                if kept:
                    print("    log: " + kept)
            sys.stdout.flush()
            # a failed calibration still needs a number: a slow guess
            self.per_call[key] = per_call or 0.001
        return self.per_call[key]


def run_job(args, env, calibrator, plan):
    """One job: its calls, kill instants, launch and verdict; prints its line."""
    program, p = plan["program"], plan["p"]
    per_call = calibrator.seconds_per_call(
        program, p, plan["bcast_tree"] != "auto" and plan["tree_settings"] != "")
    calls = calls_for(args, per_call)
    schedule = kill_schedule(plan, calls, per_call)
    job_env = dict(env, FTCOLL_BCAST_PLAN=plan["bcast_plan"],
                   FTCOLL_BCAST_CONFIRM=plan["bcast_confirm"],
                   FTCOLL_ALLGATHER_ALGORITHM=plan["allgather"],
                   FTCOLL_ALLGATHERV_ALGORITHM=plan["allgatherv"],
                   FTCOLL_GATHER_ALGORITHM=plan["gather"],
                   FTCOLL_SCATTER_ALGORITHM=plan["scatter"],
                   FTCOLL_REDUCE_SCATTER_ALGORITHM=plan["reduce_scatter"],
                   FTCOLL_ALLTOALL_ALGORITHM=plan["alltoall"])
    if plan["bcast_tree"] != "auto":
        job_env.update(FTCOLL_BCAST=plan["bcast_tree"], FTCOLL_TREE=plan["tree_settings"])
    comm = plan["comm"] if args.comm == "mixed" else args.comm
    if program == "pmpi":
        job_env.update(TORTURE_COMM=comm)
    with tempfile.TemporaryDirectory(prefix="torture-") as workdir:
        res = launch(args, job_env, workdir, program, p, calls, plan["after"], schedule,
                     expected=calls * per_call)
    verdict, reasons = judge(program, p, calls, res, args.tag_window)
    what = program + ("" if program == "pmpi" else " after=" + plan["after"])
    if program == "pmpi" and comm != "world":
        what += " TORTURE_COMM=" + comm
    if plan["bcast_tree"] != "auto":
        what += " FTCOLL_BCAST=" + plan["bcast_tree"]
        if plan["tree_settings"]:
            what += " FTCOLL_TREE=" + plan["tree_settings"]
    if plan["bcast_plan"] != "auto":
        what += " FTCOLL_BCAST_PLAN=" + plan["bcast_plan"]
    if plan["bcast_confirm"] != "auto":
        what += " FTCOLL_BCAST_CONFIRM=" + plan["bcast_confirm"]
    if plan["allgather"] != "auto":
        what += " FTCOLL_ALLGATHER_ALGORITHM=" + plan["allgather"]
    if plan["allgatherv"] != "auto":
        what += " FTCOLL_ALLGATHERV_ALGORITHM=" + plan["allgatherv"]
    if plan["gather"] != "auto":
        what += " FTCOLL_GATHER_ALGORITHM=" + plan["gather"]
    if plan["scatter"] != "auto":
        what += " FTCOLL_SCATTER_ALGORITHM=" + plan["scatter"]
    if plan["alltoall"] != "auto":
        what += " FTCOLL_ALLTOALL_ALGORITHM=" + plan["alltoall"]
    if plan["reduce_scatter"] != "auto":
        what += " FTCOLL_REDUCE_SCATTER_ALGORITHM=" + plan["reduce_scatter"]
    notes = res["stderr"].count("MPI_Finalize still waits")
    line = "job %d p=%d %s calls=%d kills=[%s] (%s) %s %.1fs%s" % (
        plan["job"], p, what, calls, describe_kills(res, schedule), plan["variation"],
        verdict, res["seconds"], " (%d rank(s) gave up waiting in MPI_Finalize)" % notes
        if notes else "")
    print(line)
    if verdict != "CORRECT":
        for reason in reasons[:(20 if args.verbose else 4)]:
            print("    " + reason[:300])
        for counter in (res.get("hang") or "").split("---- ")[0].splitlines():
            print("    " + counter)
        for summary in ftcoll_frames(res.get("hang") or ""):
            print("    " + summary)
    if verdict != "CORRECT" or args.keep_all:
        kept = keep_log(args, "job-%d-p%02d-%s.log" % (plan["job"], p, verdict), res,
                        line + "\nseed %d" % args.seed)
        if kept and verdict != "CORRECT":
            print("    log: " + kept)
    sys.stdout.flush()
    return verdict


def main(argv):
    args = parse_args(argv)
    env = job_environment(args)
    jobs = [args.job] if args.job is not None else list(range(args.jobs))
    plans = [plan_job(args, j) for j in jobs]
    print("torture: seed %d, %d job(s), ranks %s, pmpi share %.2f, time limit %.0f s past "
          "twice the calls' time, FTCOLL_TAG_WINDOW=%d, torture_api calls %s" % (
              args.seed, len(plans), ",".join(map(str, args.ranks)), args.pmpi_share,
              args.time_limit, args.tag_window, args.collective))
    print("torture: replay job K with: %s --seed %d --job K --ranks %s --pmpi-share %s "
          "--loop-seconds %s --tag-window %d --collective %s%s%s%s" % (
              sys.argv[0], args.seed, ",".join(map(str, args.ranks)), args.pmpi_share,
              args.loop_seconds, args.tag_window, args.collective,
              " --length %d" % args.length if args.length else "",
              " --bcast-trees %s" % args.bcast_trees if args.bcast_trees else "",
              " --comm %s" % args.comm if args.comm != "mixed" else ""))
    sys.stdout.flush()

    calibrator = Calibrator(args, env)
    results = []
    wall = time.monotonic()
    for plan in plans:
        results.append((plan["p"], run_job(args, env, calibrator, plan)))

    print_table(results, args.ranks)
    passed = sum(1 for _, v in results if v == "CORRECT")
    failed = len(results) - passed
    print("seed %d, %.0f s in all%s" % (
        args.seed, time.monotonic() - wall,
        ", %d failure-free calibration run(s) failed" % calibrator.failures
        if calibrator.failures else ""))
    print("torture: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and calibrator.failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
