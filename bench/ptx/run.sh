#!/bin/bash
# bench/ptx/run.sh - registers and spills of every probe kernel for every GPU
# architecture the CUDA toolkit's ptxas accepts, into bench/ptx/figures.txt:
# the figures to compare after a change to src/probe/kernels/ (make all
# first; PTXAS=path overrides /usr/local/cuda/bin/ptxas).  tests/probe/ptxas.sh
# prints the same table and any difference from the file.
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
scripts/ptxas-check.sh "$BUILD/gen/base.ptx" "$BUILD/gen/tensor.ptx" >bench/ptx/figures.txt
cat bench/ptx/figures.txt
