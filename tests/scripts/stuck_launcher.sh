#!/usr/bin/env bash
# A launcher that outlives its job, as Open MPI 5.0.7's (ULFM) sometimes
# does when every rank exits with a non-zero status: it runs the real one,
# $FTCOLL_REAL_MPIRUN, then waits. ftcrun must stop it and still give the
# program's exit status.
"$FTCOLL_REAL_MPIRUN" "$@"
exec sleep 600
