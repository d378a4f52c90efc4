#!/usr/bin/env bash
# Runs every notebook of the pypto corpus (tests/fixtures/pypto_corpus) with the CLI, as a user
# would, and prints one line per file — pass, or its first error (a kernel that fell back to the
# CPU reference is not a pass: the goal is the simulated NPU) — then "N of M run unchanged".
# A line whose outcome differs from EXPECTED.txt is marked with "!" (update the list when a file
# starts to pass: `CORPUS_BLESS=1 cargo test --test lang pypto_corpus` rewrites it).
# Usage: scripts/corpus.sh [--release]
set -u
cd "$(dirname "$0")/.."
profile=debug
build_flags=()
if [ "${1:-}" = "--release" ]; then
  profile=release
  build_flags=(--release)
fi
cargo build -q "${build_flags[@]}" --bin tilelab || exit 2
cli="target/$profile/tilelab"
corpus=tests/fixtures/pypto_corpus
expected="$corpus/EXPECTED.txt"
passed=0
total=0
changed=0
for file in "$corpus"/*.py; do
  name=$(basename "$file")
  total=$((total + 1))
  output=$("$cli" run "$file" 2>&1 >/dev/null)
  status=$?
  error=$(printf '%s\n' "$output" | grep -m1 ': error: ' | sed 's/^[^ ]*: error: //')
  fallback=$(printf '%s\n' "$output" | grep -m1 'ran on the CPU reference path' | sed 's/^.*cannot run on the NPU yet: //')
  if [ $status -eq 0 ] && [ -z "$fallback" ]; then
    outcome=pass
    passed=$((passed + 1))
  elif [ $status -ne 0 ]; then
    outcome="fail: ${error:-exit status $status}"
  else
    outcome="fail: cpu fallback: $fallback"
  fi
  listed=$(grep -m1 "^$name: " "$expected" 2>/dev/null | sed "s/^$name: //")
  mark=" "
  if [ "${listed%%:*}" != "${outcome%%:*}" ]; then
    mark="!"
    changed=$((changed + 1))
  fi
  printf '%s %-36s %s\n' "$mark" "$name" "$outcome"
done
echo "$passed of $total run unchanged"
if [ $changed -gt 0 ]; then
  echo "$changed file(s) differ from EXPECTED.txt (marked !)"
fi
