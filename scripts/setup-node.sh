#!/usr/bin/env bash
# Installs the npm packages the exporter tests use into tools/node (not in git):
#   playwright-core  drives Debian's chromium headless for the HTML report test;
#   speedscope       ships file-format-schema.json, the schema speedscope exports
#                    are checked against.
# Tests find them through FWPROF_NODE_MODULES (default: tools/node/node_modules).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p tools/node
if [ ! -f tools/node/package.json ]; then
  echo '{"name":"fwprof-test-tools","private":true}' > tools/node/package.json
fi
npm install --prefix tools/node --no-audit --no-fund --loglevel=error \
  playwright-core@1.48.2 speedscope@1.22.2 >/dev/null
echo "npm tools in tools/node/node_modules"
