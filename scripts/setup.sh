#!/usr/bin/env bash
# Installs what Takeline needs on a fresh Debian/Ubuntu machine, then the npm dependencies.
# Idempotent: installs only what is missing. Used by the README's two commands and by CI.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# Takeline runs on Node 22 (Electron 45's own Node; pg-boss, team mode's queue, needs >= 22.12). Where the
# machine's node is older, the official build from the npm registry (node-linux-<arch>, with its headers for
# native add-ons) goes into /usr/local, which comes before /usr/bin on PATH.
NODE_VERSION=22.23.3
node_ok() { node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) ? 0 : 1)' 2>/dev/null; }
if ! node_ok; then
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) echo "setup: install Node $NODE_VERSION by hand" >&2; exit 1 ;; esac
  echo "setup: installing Node $NODE_VERSION into /usr/local"
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$NODE_VERSION" >/dev/null)
  $sudo tar xzf "$tmp"/node-linux-*.tgz --strip-components=1 -C /usr/local package/bin package/include package/share
  rm -rf "$tmp"
  hash -r
  node_ok || { echo "setup: $(command -v node) is still $(node -v); put /usr/local/bin first on PATH" >&2; exit 1; }
fi

need=()
command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 || need+=(ffmpeg)
command -v pocketsphinx_batch >/dev/null 2>&1 || need+=(pocketsphinx)
[ -f /usr/share/pocketsphinx/model/en-us/en-us/mdef ] || need+=(pocketsphinx-en-us)
# Speaker adaptation (MLLR across a project's recordings): sphinxtrain's bw and mllr_solve, sphinxbase's sphinx_fe.
[ -x /usr/lib/sphinxtrain/bw ] || need+=(sphinxtrain)
command -v sphinx_fe >/dev/null 2>&1 || need+=(sphinxbase-utils)
# Praat is the reference the prosody measures are benchmarked against (npm run bench -- prosody).
command -v praat >/dev/null 2>&1 || need+=(praat)
# Voices for /v1/audio/speech and dubbing: festival's HTS voice (the most natural offline), its male diphone voices and espeak-ng.
command -v text2wave >/dev/null 2>&1 || need+=(festival)
[ -d /usr/share/festival/voices/us/cmu_us_slt_arctic_hts ] || need+=(festvox-us-slt-hts)
# festival's male US English diphone voices (a male speaker's default voice).
[ -d /usr/share/festival/voices/english/kal_diphone ] || need+=(festvox-kallpc16k)
[ -d /usr/share/festival/voices/english/ked_diphone ] || need+=(festvox-kdlpc16k)
command -v espeak-ng >/dev/null 2>&1 || need+=(espeak-ng)
# Rubber Band moves a revoiced line's pitch toward the original actor's (dubbing's guide: "original").
command -v rubberband >/dev/null 2>&1 || need+=(rubberband-cli)
# Team mode's database: its schema and store tests start a throwaway PostgreSQL server (Debian's postgresql).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
# Team mode's S3 storage is tested against a real gateway: a throwaway one-node Ceph (Debian's ceph-mon, ceph-osd, radosgw).
{ command -v ceph-mon >/dev/null 2>&1 && command -v ceph-osd >/dev/null 2>&1 && command -v radosgw >/dev/null 2>&1; } || need+=(ceph-mon ceph-osd radosgw)
# The metrics are tested by a real Prometheus the test starts on loopback (Debian's prometheus).
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
# The end-to-end tests drive Debian's Chromium (TAKELINE_SKIP_CHROMIUM=1 to skip on a machine that only serves).
if [ -z "${TAKELINE_SKIP_CHROMIUM:-}" ]; then command -v chromium >/dev/null 2>&1 || need+=(chromium); fi
# Cue sheets are tested as a supervisor edits them: exported, changed in LibreOffice Calc (headless) and imported.
command -v soffice >/dev/null 2>&1 || need+=(libreoffice-calc)
# better-sqlite3 and smart-whisper (whisper.cpp) compile their C/C++ sources during npm ci.
{ command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1; } || need+=(g++ make)
command -v python3 >/dev/null 2>&1 || need+=(python3)

if [ ${#need[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${need[*]} with apt-get"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need[@]}"
  else
    echo "setup: please install: ${need[*]} (no apt-get here)" >&2
    exit 1
  fi
fi

# npm ci when node_modules is missing, older than the lock file, or built for another Node (native add-ons).
abi="$(node -p process.versions.modules)"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
  || [ "$(cat node_modules/.takeline-node-abi 2>/dev/null)" != "$abi" ]; then
  # onnxruntime-node's optional CUDA add-on is fetched from outside the npm registry; Takeline runs on CPU.
  # whisper.cpp (smart-whisper) is compiled for this machine's CPU: node-gyp's default flags give SSE2 code,
  # about 8x slower on the test model than with AVX2/FMA (see src/service/speech/recognition/whisper/README.md).
  # Add-ons build against the running node's own headers (a machine-wide npm nodedir may name another Node's).
  nodedir="$(node -p 'require("path").resolve(process.execPath, "../..")')"
  [ -f "$nodedir/include/node/node.h" ] && export npm_config_nodedir="$nodedir"
  CFLAGS="${CFLAGS:--march=native}" CXXFLAGS="${CXXFLAGS:--march=native}" ONNXRUNTIME_NODE_INSTALL=skip npm ci
  echo "$abi" > node_modules/.takeline-node-abi
fi
