#!/usr/bin/env bash
# Build every cargo-fuzz target with the nightly toolchain, installing
# cargo-fuzz if needed: per crate (crates/*/fuzz: ELF loader, decoder, profile
# file format) and across crates (fuzz/: profile_read, everything that reads a
# profile: reader, reports, diff, merge). Run a target with e.g.
#   (cd crates/fwprof-isa/fuzz && cargo +nightly fuzz run decode -- -max_total_time=60)
#   (cd fuzz && cargo +nightly fuzz run profile_read -- -max_total_time=60)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "fuzz-build: no nightly toolchain; skipping" >&2
    exit 0
fi
command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked cargo-fuzz
for dir in crates/*/fuzz fuzz; do
    echo "fuzz-build: $dir"
    (cd "$dir" && cargo +nightly fuzz build -O)
done
