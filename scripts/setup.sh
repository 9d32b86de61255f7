#!/usr/bin/env bash
# Installs what Takeline needs on a fresh Debian/Ubuntu machine, then the npm dependencies.
# Idempotent: installs only what is missing. Used by the README's two commands and by CI.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 || need+=(ffmpeg)
command -v pocketsphinx_batch >/dev/null 2>&1 || need+=(pocketsphinx)
[ -f /usr/share/pocketsphinx/model/en-us/en-us/mdef ] || need+=(pocketsphinx-en-us)
# The end-to-end tests drive Debian's Chromium (TAKELINE_SKIP_CHROMIUM=1 to skip on a machine that only serves).
if [ -z "${TAKELINE_SKIP_CHROMIUM:-}" ]; then command -v chromium >/dev/null 2>&1 || need+=(chromium); fi

if [ ${#need[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "setup: installing ${need[*]} with apt-get"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need[@]}"
  else
    echo "setup: please install: ${need[*]} (no apt-get here)" >&2
    exit 1
  fi
fi

# npm ci when node_modules is missing or older than the lock file.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # onnxruntime-node's optional CUDA add-on is fetched from outside the npm registry; Takeline runs on CPU.
  ONNXRUNTIME_NODE_INSTALL=skip npm ci
fi
