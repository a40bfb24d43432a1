#!/usr/bin/env bash
# Runs the `cloudconvert` SDK repository's own integration tests (tests/integration/*.ts, sandbox
# credentials, tests/integration/files/input.png) against a running platform of this repository.
#
#   PORT=4100 DATA_DIR=/tmp/sdk-suite-data npm start            # in another terminal (or any running stage)
#   SERVICE_URL=http://localhost:4100 DATA_DIR=/tmp/sdk-suite-data scripts/sdk-suite/run.sh
#
# Settings (environment):
#   SERVICE_URL   the platform's base URL (default http://localhost:4000)
#   SOCKET_URL    where the SDK's socket.io client connects (default SERVICE_URL)
#   DATA_DIR      the platform's data folder, for the key and whitelist commands (default .data)
#   SDK_DIR       where the SDK copy goes (default a new temporary folder; reused when it holds built/)
#   SDK_MIRROR    a git directory of cloudconvert/cloudconvert-node to copy from (default: clone from GitHub)
#   SDK_REF       the commit to test (default HEAD of the mirror, or the clone's default branch)
#
# Steps: copy the repository out, `npm install` there (its `prepare` builds with tsc), make a sandbox
# key with every scope, whitelist input.png's MD5 for the sandbox, run mocha with the require file.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export SERVICE_URL="${SERVICE_URL:-http://localhost:4000}"
export SOCKET_URL="${SOCKET_URL:-$SERVICE_URL}"
SDK_DIR="${SDK_DIR:-$(mktemp -d -t cloudconvert-node-XXXXXX)}"
export SDK_DIR

if [ ! -f "$SDK_DIR/built/lib/CloudConvert.js" ]; then
  if [ -n "${SDK_MIRROR:-}" ]; then
    git --git-dir="$SDK_MIRROR" archive "${SDK_REF:-HEAD}" | tar -x -C "$SDK_DIR"
  else
    git clone --quiet https://github.com/cloudconvert/cloudconvert-node "$SDK_DIR"
    [ -n "${SDK_REF:-}" ] && git -C "$SDK_DIR" checkout --quiet "$SDK_REF"
  fi
  (cd "$SDK_DIR" && npm install --no-audit --no-fund --loglevel=error && npx tsc)
fi

cd "$repo"
key="$(npm run -s keys -- create --sandbox --name sdk-suite --scopes user.read,user.write,task.read,task.write,webhook.read,webhook.write)"
npm run -s sandbox -- allow "$SDK_DIR/tests/integration/files/input.png" >/dev/null

cd "$SDK_DIR"
CLOUDCONVERT_API_KEY="$key" npx mocha --no-config --require tsx --require "$here/require.cjs" --spec 'tests/integration/*.ts' --timeout 120000 "$@"
