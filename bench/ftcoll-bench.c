/*
 * ftcoll-bench: measures ftcoll's collectives against the MPI library's own.
 *
 *     mpirun -n 8 ftcoll-bench allgather [options]    (see: allgather --help)
 *     mpirun -n 8 ftcoll-bench allreduce [options]    (see: allreduce --help)
 *     mpirun --with-ft ulfm -n 8 ftcoll-bench allreduce-recovery [options]
 *     mpirun -n 8 ftcoll-bench guard [options]
 *     mpirun -n 24 ftcoll-bench tree --topology FILE [options]
 *     ftcoll-bench --help
 *
 * Each collective is a subcommand in the table below; adding one
 * means writing its bench_<name>_main, usually a bench_collective handed to
 * bench_collective_main (bench.h), and adding a row.
 * Exit status: 0 done, 1 a call failed or gave a wrong result, 2 bad usage.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "ftcoll.h"

static const bench_subcommand subcommands[] = {
    { "allgather", "ftc_allgather vs MPI_Allgather, per algorithm and block size",
      bench_allgather_main },
    { "allreduce", "ftc_allreduce vs MPI_Allreduce, MPI_SUM on MPI_DOUBLE, per vector size",
      bench_allreduce_main },
    { "allreduce-recovery", "one rank killed in ftc_allreduce vs a hand-written ULFM recovery "
      "(ULFM only)", bench_allreduce_recovery_main },
    { "guard", "the guard's cost per collective against one MPI_Barrier, per every-N setting",
      bench_guard_main },
    { "tree", "broadcast trees over an emulated network: one scenario, one algorithm",
      bench_tree_main },
};

enum { SUBCOMMAND_COUNT = sizeof(subcommands) / sizeof(subcommands[0]) };

static void print_usage(FILE *out)
{
    fprintf(out,
            "ftcoll-bench %d.%d.%d: ftcoll's collectives against the MPI library's\n\n"
            "Usage: mpirun -n RANKS ftcoll-bench SUBCOMMAND [OPTIONS]\n"
            "       ftcoll-bench SUBCOMMAND --help\n\n"
            "Subcommands:\n",
            FTCOLL_VERSION_MAJOR, FTCOLL_VERSION_MINOR, FTCOLL_VERSION_PATCH);
    for (int i = 0; i < SUBCOMMAND_COUNT; i++)
        fprintf(out, "  %-18s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(out, "\nExit status: 0 done, 1 a call failed or gave a wrong result, 2 bad usage.\n");
}

static const bench_subcommand *find_subcommand(const char *name)
{
    for (int i = 0; i < SUBCOMMAND_COUNT; i++)
        if (strcmp(subcommands[i].name, name) == 0)
            return &subcommands[i];
    return NULL;
}

static bool asks_for_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0 || strcmp(arg, "help") == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return bench_usage_error(NULL, "no subcommand given");
    if (asks_for_help(argv[1])) {
        if (bench_is_first_process())
            print_usage(stdout);
        return BENCH_OK;
    }
    const bench_subcommand *subcommand = find_subcommand(argv[1]);
    if (!subcommand)
        return bench_usage_error(NULL, "unknown subcommand \"%s\"", argv[1]);
    return subcommand->run(argc - 1, argv + 1);
}
