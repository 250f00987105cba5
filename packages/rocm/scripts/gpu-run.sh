#!/usr/bin/env bash
# Everything one device run does for the HIP backend, in order (from the repository root, after
# `source .gpukit/setup.sh`, carrying .gpu-bundle/ from `bash test/conformance/gpu/bundle.sh`):
# build the NVIDIA variant for sm_90; the GPU correctness gate (every conformance case on WebGPU and on this build,
# element by element against @tandem/reference: .gpu-bundle/conformance-gpu.mjs); the cuBLAS / PyTorch ceilings
# (skipped with CEILINGS=0); compute-sanitizer memcheck and racecheck over the gate's quick cases on the HIP backend
# (API errors are not reported: the gate's out-of-memory check makes one on purpose). At most 8 files go to $OUT.
# Exits 1 when the build, the gate or a sanitizer fails (after the remaining steps), so a wrong GPU never reads as
# a pass. Performance figures: `bash apps/bench/scripts/gpu-bench.sh rocm`.
set -u
out=${OUT:-/tmp/gpu-run}
mkdir -p "$out"
addon=packages/rocm/build/nvidia/tandem_rocm.node
gate=.gpu-bundle/conformance-gpu.mjs
status=0
stamp() { echo "[$(date +%T)] $*"; }

[ -f "$gate" ] || { echo "gpu-run: $gate missing: run bash test/conformance/gpu/bundle.sh here and carry .gpu-bundle" >&2; exit 1; }
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.max.mem,driver_version --format=csv > "$out/nvidia-smi.txt" 2>&1
stamp build
if ! TANDEM_CUDA_ARCHS=90 node packages/rocm/scripts/build.mjs --variant nvidia --jobs 16 > "$out/build.log" 2>&1; then
  cat "$out/build.log"
  exit 1
fi
tail -1 "$out/build.log"

stamp "correctness gate"
if timeout 240 node "$gate" --rocm-addon "$addon" > "$out/conformance.log" 2>&1; then
  tail -3 "$out/conformance.log"
else
  status=1
  grep -v '^FAIL' "$out/conformance.log" | tail -10
  grep '^FAIL' "$out/conformance.log" | head -30
fi

if [ "${CEILINGS:-1}" != 0 ]; then
  stamp ceilings
  timeout 60 python3 apps/bench/probes/cublas-ceiling.py > "$out/cublas.json" 2>&1
  tail -c 1500 "$out/cublas.json"; echo
fi

stamp sanitizer
{
  echo "== memcheck, quick cases =="
  timeout 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 --print-limit 10 node "$gate" --rocm-addon "$addon" --only rocm --quick
  echo "memcheck exit $?"
  echo "== racecheck, shared-memory kernels =="
  timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 --print-limit 10 node "$gate" --rocm-addon "$addon" --only rocm --quick --cases 'quantizedMatmul|topK|attention'
  echo "racecheck exit $?"
} > "$out/sanitizer.log" 2>&1
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Hazard|Invalid|GPU conformance|exit [0-9]|==" "$out/sanitizer.log" | head -30
grep -qE "^(memcheck|racecheck) exit [1-9]" "$out/sanitizer.log" && status=1
stamp "done (exit $status)"
exit $status
