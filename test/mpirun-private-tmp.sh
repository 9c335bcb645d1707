#!/bin/bash
# Runs a command (an mpirun job) with a TMPDIR of its own, removed after.
# Open MPI 4 makes its session directory under $TMPDIR (ompi.<host>.<uid>)
# and fails with "mkdir ...: File exists" when two jobs started at once race
# to create the same one, as lit's parallel workers sharing one TMPDIR do.
# The exit status is the command's.
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpi.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
TMPDIR="$dir" "$@"
