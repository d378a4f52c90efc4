#!/usr/bin/env bash
# Groups the flat integration tests into one test binary per area: tests/<area>_<name>.rs becomes
# tests/<area>/<name>.rs, a module of tests/<area>/main.rs. Each binary links the whole crate, so 37
# flat files meant 37 links per build; one per area makes a handful. Idempotent: run it again after a
# merge brings new flat files (it moves only what is still flat and rewrites each main.rs).
#
# The moves are mechanical: `git mv`, plus three rewrites inside a moved file so it compiles as a
# module: `mod <shared>;` becomes `use super::<shared>;` (main.rs declares the shared module once),
# and `include_str!`/`include_bytes!` paths gain one `../`. tests/<area>_<name>/ support folders move
# to tests/<area>/<name>/ the same way. The wasm-bindgen binaries (browser_*, worker_*) stay flat:
# each needs its own `wasm_bindgen_test_configure!`.
set -euo pipefail

cd "$(dirname "$0")/../tests"

# Prefixes whose files join another area's binary (the RNG belongs to the tensor core).
declare -A alias=([rng]=tensor [reliability]=lang [hostile]=cli [readme]=cli)
# Prefixes that stay one binary per file.
keep_flat=" browser worker "

area_of() {
  local prefix=${1%%_*}
  echo "${alias[$prefix]:-$prefix}"
}

# The module name inside its area: the file name without the area prefix, or the whole name when the
# file joined another area through an alias (rng_stream stays rng_stream).
module_of() {
  local stem=$1 prefix=${1%%_*}
  if [[ -n "${alias[$prefix]:-}" ]]; then echo "$stem"; else echo "${stem#*_}"; fi
}

moved_any=0
for path in *_*.rs *_*/; do
  [[ -e "$path" ]] || continue
  stem=${path%/}
  stem=${stem%.rs}
  prefix=${stem%%_*}
  [[ "$keep_flat" == *" $prefix "* ]] && continue
  [[ "$stem" == *_* ]] || continue
  area=$(area_of "$stem")
  module=$(module_of "$stem")
  mkdir -p "$area"
  if [[ -d "$path" ]]; then
    git mv "$stem" "$area/$module"
  else
    git mv "$path" "$area/$module.rs"
  fi
  moved_any=1
done

# Rewrite the moved files and write each area's main.rs from the files now in the folder.
for area_dir in */; do
  area=${area_dir%/}
  # An area folder holds test modules; shared helpers (common/) and data (fixtures/, golden/, e2e/) do not.
  compgen -G "$area/*.rs" >/dev/null || continue
  [[ "$area" == common ]] && continue
  shared=()
  modules=()
  for file in "$area"/*.rs; do
    name=$(basename "$file" .rs)
    [[ "$name" == main ]] && continue
    modules+=("$name")
    # `mod x;` at the top level of a moved file: x is a support folder of this area or a shared one.
    while read -r declared; do
      local_name=$(module_of "$declared")
      if [[ -d "$area/$local_name" ]]; then
        sed -i -E "s/^mod $declared;$/use super::$local_name as $declared;/" "$file"
        shared+=("$local_name")
      else
        sed -i -E "s/^mod $declared;$/use super::$declared;/" "$file"
        shared+=("../$declared")
      fi
    done < <(sed -n -E 's/^mod ([a-z_0-9]+);$/\1/p' "$file")
    # Paths of include_str!/include_bytes! are relative to the file, which is now one folder deeper.
    sed -i -E 's#(include_(str|bytes)!\(")([^/.][^"]*")#\1../\3#' "$file"
    # Lines already rewritten by an earlier run still name their shared module.
    while read -r used; do
      [[ -d "$area/$used" ]] && shared+=("$used") || shared+=("../$used")
    done < <(sed -n -E 's/^use super::([a-z_0-9]+)( as [a-z_0-9]+)?;$/\1/p' "$file")
  done
  {
    echo "//! The $area feature tests, one binary (scripts/group-tests.sh writes this file)."
    echo ""
    for module in $(printf '%s\n' "${shared[@]}" | sort -u); do
      if [[ "$module" == ../* ]]; then
        echo "#[path = \"$module/mod.rs\"]"
        echo "mod ${module#../};"
      else
        modules+=("$module")
      fi
    done
    printf 'mod %s;\n' "${modules[@]}" | sort -u
  } > "$area/main.rs"
  git add "$area/main.rs"
done

if (( moved_any == 0 )); then
  echo "group-tests: nothing flat left to move; main.rs files rewritten" >&2
fi
