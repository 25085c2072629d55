#!/usr/bin/env bash
# The whole test suite: builds the RISC-V test corpus with the Debian cross
# toolchains, then runs every Rust test (unit, property, golden, and the
# differential tests against QEMU) in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."

export FWPROF_REQUIRE_QEMU=1
tests/corpus/build.sh
tests/hostile/build.sh
cargo test --workspace --release --locked --no-fail-fast -- --test-threads=2
