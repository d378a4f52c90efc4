#!/usr/bin/env bash
# Installs what building and testing TileLab needs and is missing; fast when all is present.
# Rust and Node come with the machine; everything else is installed from the package registries.
set -euo pipefail

cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'ensure-tools: %s\n' "$*"; }

# cargo install with --locked first (the dependency versions the tool was released with), and
# without it if that fails (a yanked or broken locked dependency).
cargo_install() {
  cargo install --locked "$@" || cargo install "$@"
}

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
if ! rustup component list --installed | grep -q '^rust-src'; then
  say "adding rust-src"
  rustup component add rust-src
fi

# Any wasm-pack drives the build; a missing one is installed at the version the project is tested with.
wasm_pack_version=0.15.1
if ! command -v wasm-pack >/dev/null 2>&1; then
  say "installing wasm-pack $wasm_pack_version"
  cargo_install wasm-pack --version "$wasm_pack_version"
fi

# wasm-bindgen-cli must match the wasm-bindgen crate exactly: read the version from Cargo.lock.
bindgen_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [[ -z "$bindgen_version" ]]; then
  say "cannot find the wasm-bindgen version in Cargo.lock" >&2
  exit 1
fi
installed_version=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [[ "$installed_version" != "$bindgen_version" ]]; then
  say "installing wasm-bindgen-cli $bindgen_version (found: ${installed_version:-none})"
  cargo_install wasm-bindgen-cli --version "$bindgen_version" --force
fi

# npm ci when node_modules is missing or older than the lockfile (npm writes its own copy of the
# lockfile into node_modules/.package-lock.json on every install).
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  say "installing the front-end packages (npm ci)"
  npm ci --no-audit --no-fund
fi
