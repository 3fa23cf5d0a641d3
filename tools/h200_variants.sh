#!/usr/bin/env bash
# Builds the variants of paper 004's Table I for the H200 (sm_90): plain loads, L2-only
# loads, texture objects and unpadded rows (CMakeLists.txt BOUSS_GLOBAL_LOADS,
# BOUSS_PADDED_ROWS), each executable with its libbouss.so in .variants/NAME (git-ignored),
# for `tools/h200_check.sh tableone`; carry .variants along with .devpack.
# Usage: tools/h200_variants.sh [NAME...]   (names: plain cg tex unpadded; default all)
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.variants/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo /.variants/ >> .git/info/exclude; }
wanted=" ${*:-plain cg tex unpadded} "
for v in "plain -DBOUSS_GLOBAL_LOADS=plain" "cg -DBOUSS_GLOBAL_LOADS=cg" "tex -DBOUSS_GLOBAL_LOADS=tex" "unpadded -DBOUSS_PADDED_ROWS=OFF"; do
  set -- $v
  name=$1
  shift
  [[ $wanted == *" $name "* ]] || continue
  cmake -S . -B "build-t1-$name" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "$@" >/dev/null
  cmake --build "build-t1-$name" -j"$(nproc)" --target bouss
  rm -rf ".variants/$name" && mkdir -p ".variants/$name"
  cp "build-t1-$name/bouss" "build-t1-$name/libbouss.so" ".variants/$name/"
done
