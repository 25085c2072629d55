#!/usr/bin/env bash
# The whole test suite: installs what is missing (scripts/install-test-deps.sh:
# Debian packages, npm tools, clippy; a no-op when all is present), builds the
# RISC-V test corpus with the Debian cross toolchains, runs every Rust test
# (unit, property, golden, and the differential tests against QEMU) optimised
# (the `ci` profile), then clippy and rustdoc with warnings as errors. Every
# step runs; the status is non-zero if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-test-deps.sh
# A tool-dependent test fails instead of skipping when its tool is missing.
export FWPROF_REQUIRE_TOOLS=1
tests/corpus/build.sh
tests/hostile/build.sh
status=0
# The `ci` profile is `release` without LTO (Cargo.toml): same code, a faster build.
cargo test --workspace --profile ci --locked --no-fail-fast -- --test-threads=2 || status=1
# --profile ci: clippy shares the proc macros and build scripts of the build above.
cargo clippy --workspace --all-targets --profile ci --locked -- -D warnings || status=1
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked || status=1
exit $status
