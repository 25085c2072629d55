#!/usr/bin/env bash
# Installs the npm packages the exporter tests use into tools/node (not in git):
#   playwright-core  drives Debian's chromium headless for the HTML report test;
#   speedscope       ships file-format-schema.json, the schema speedscope exports
#                    are checked against.
# Tests find them through FWPROF_NODE_MODULES (default: tools/node/node_modules).
# Does nothing (no network) when both are already there at these versions.
set -euo pipefail
cd "$(dirname "$0")/.."
want=(playwright-core@1.48.2 speedscope@1.22.2)
have() { # have NAME VERSION: the package is installed at that version
  grep -qs "\"version\": \"$2\"" "tools/node/node_modules/$1/package.json"
}
if have playwright-core 1.48.2 && have speedscope 1.22.2; then
  echo "npm tools in tools/node/node_modules (present)"
  exit 0
fi
mkdir -p tools/node
if [ ! -f tools/node/package.json ]; then
  echo '{"name":"fwprof-test-tools","private":true}' > tools/node/package.json
fi
npm install --prefix tools/node --no-audit --no-fund --loglevel=error "${want[@]}" >/dev/null
echo "npm tools in tools/node/node_modules"
