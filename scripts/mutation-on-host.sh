#!/usr/bin/env bash
# Runs `npm run test:mutation` (Stryker, stryker.config.mjs) on a borrowed many-core machine, because one run needs
# hours on 2 cores. Two steps:
#
#   bash scripts/mutation-on-host.sh pack           here, after `npm install` and `npm run build`: writes
#                                                   .gpu-mutation/modules.tar.xz (the node_modules Stryker and the
#                                                   mutation tests need, found by module-closure.mjs, plus the
#                                                   built .wasm kernels)
#   bash scripts/mutation-on-host.sh run [SECONDS]  there, from the repository root, with .gpukit (node) and
#                                                   .gpu-mutation carried: unpacks once, then runs Stryker with
#                                                   --incremental for at most SECONDS (default 540) on all cores but
#                                                   two. Results carry over: .gpu-mutation/incremental.json is copied
#                                                   to $OUT with the JSON and HTML reports; put it back in
#                                                   .gpu-mutation/ before the next call, which then tests only the
#                                                   mutants not yet done (a run cut by the limit keeps nothing, so
#                                                   split with STRYKER_MUTATE, e.g. 'packages/core/src/scheduler/**/*.ts').
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
DIR=.gpu-mutation
case "${1:-}" in
  pack)
    set -e
    [ -d node_modules/@stryker-mutator/core ] || { echo "mutation-on-host: run npm install first" >&2; exit 1; }
    ls packages/wasm/dist/*.wasm > /dev/null 2>&1 || { echo "mutation-on-host: run npm run build first" >&2; exit 1; }
    mkdir -p "$DIR"
    node apps/bench/scripts/module-closure.mjs --skip webgpu @stryker-mutator/core @stryker-mutator/vitest-runner \
      vitest vite fast-check tsx typescript tandem @tandem/core @tandem/reference @tandem/wasm @tandem/testing @tandem/graph \
      @tandem/webgpu @tandem/rocm > "$DIR/modules.txt"
    { cat "$DIR/modules.txt"; echo packages/wasm/dist; } > "$DIR/paths.txt"
    tar -cJf "$DIR/modules.tar.xz" --exclude='*.map' --exclude='*.md' -T "$DIR/paths.txt"
    echo "mutation-on-host: $(wc -l < "$DIR/modules.txt") packages in $DIR/modules.tar.xz ($(du -h "$DIR/modules.tar.xz" | cut -f1))"
    ;;
  run)
    LIMIT=${2:-540}
    OUT_DIR=${OUT:-/tmp/mutation-out}
    mkdir -p "$OUT_DIR"
    # shellcheck source=/dev/null
    [ -f .gpukit/setup.sh ] && source .gpukit/setup.sh > /dev/null
    want=$(sha256sum < "$DIR/modules.tar.xz" | cut -c1-64)
    if [ "$(cat node_modules/.mutation-unpacked 2>/dev/null)" != "$want" ]; then
      tar -xJf "$DIR/modules.tar.xz" || { echo "mutation-on-host: cannot unpack $DIR/modules.tar.xz" >&2; exit 3; }
      echo "$want" > node_modules/.mutation-unpacked
    fi
    # Half the cores: with a worker on every core (62 of 64) the tests ran so much slower than in the idle dry run that
    # sets Stryker's timeout that 36% of the mutants "timed out" (counted as killed, but not known to be).
    cores=$(nproc)
    workers=$((cores > 4 ? cores / 2 : 2))
    mutate=()
    [ -n "${STRYKER_MUTATE:-}" ] && mutate=(--mutate "$STRYKER_MUTATE")
    echo "mutation-on-host: node $(node --version), $cores cores, concurrency $workers, limit ${LIMIT}s ${mutate[*]}"
    timeout --signal=INT --kill-after=20 "$LIMIT" node node_modules/@stryker-mutator/core/bin/stryker.js run \
      --concurrency "$workers" --incremental --incrementalFile "$DIR/incremental.json" "${mutate[@]}" \
      --reporters clear-text,progress-append-only,html,json 2>&1 | grep -v '^\s*$' | tail -n 400
    rc=${PIPESTATUS[0]}
    cp "$DIR/incremental.json" .cache/stryker/mutation.json .cache/stryker/mutation.html "$OUT_DIR/" 2> /dev/null
    echo "mutation-on-host: stryker exit $rc"
    exit "$rc"
    ;;
  *)
    echo "usage: bash scripts/mutation-on-host.sh pack | run [SECONDS]" >&2
    exit 2
    ;;
esac
