#!/usr/bin/env bash
# Everything one device run does, in order (from the repository root, after `source .gpukit/setup.sh`):
# build the NVIDIA variant for sm_90; check every kernel and benchmark (gpu-check.mjs); the cuBLAS / PyTorch
# ceilings (skipped with CEILINGS=0); Nsight Compute's kernel-only durations and DRAM bytes of the quantized
# mat-vec variants (event timing includes the host's launch gap, ~6 us, which matters for a ~12 us kernel);
# compute-sanitizer memcheck and racecheck over the quick cases. At most 8 files go to $OUT.
set -u
out=${OUT:-/tmp/gpu-run}
mkdir -p "$out"
addon=packages/rocm/build/nvidia/tandem_rocm.node
check=packages/rocm/scripts/gpu-check.mjs
stamp() { echo "[$(date +%T)] $*"; }

nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,clocks.max.mem,driver_version --format=csv > "$out/nvidia-smi.txt" 2>&1
stamp build
if ! TANDEM_CUDA_ARCHS=90 node packages/rocm/scripts/build.mjs --variant nvidia --jobs 16 > "$out/build.log" 2>&1; then
  cat "$out/build.log"
  exit 1
fi
tail -1 "$out/build.log"

stamp check+bench
timeout 180 node $check --addon "$addon" --bench --out "$out" > "$out/check.log" 2>&1
grep -v '^FAIL' "$out/check.log" | tail -30
grep '^FAIL' "$out/check.log" | cut -c1-400 | head -20

if [ "${CEILINGS:-1}" != 0 ]; then
  stamp ceilings
  timeout 60 python3 packages/rocm/scripts/cublas-ceiling.py > "$out/cublas.json" 2>&1
  tail -c 1500 "$out/cublas.json"; echo
fi

stamp ncu
timeout 90 ncu --clock-control none --print-units base --kernel-name regex:quantized_matvec --metrics gpu__time_duration.sum,dram__bytes_read.sum \
  --csv node $check --addon "$addon" --bench-child --bench-only quantized > "$out/ncu.csv" 2>&1
node -e '
  const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter((l) => l.startsWith("\"") && l.includes("quantized_matvec"));
  const rows = {};
  for (const l of lines) {
    const f = l.split("\",\"").map((x) => x.replace(/"/g, ""));
    const id = f[0], name = f.find((x) => x.includes("quantized_matvec")), metric = f[f.length - 3], value = Number(f[f.length - 1].replace(/,/g, ""));
    (rows[id] ??= { name: name.replace(/.*quantized_matvec_/, "").replace(/\(.*/, "") })[metric] = value;
  }
  const groups = {};
  for (const r of Object.values(rows)) (groups[r.name] ??= []).push(r);
  for (const [name, rs] of Object.entries(groups)) {
    const t = rs.map((r) => r["gpu__time_duration.sum"]).sort((a, b) => a - b);
    const b = rs.map((r) => r["dram__bytes_read.sum"]).sort((a, b) => a - b);
    const tm = t[t.length >> 1], bm = b[b.length >> 1];
    console.log(`${name.padEnd(28)} n=${rs.length} kernel ${(tm / 1e3).toFixed(2)} us, DRAM read ${(bm / 1e6).toFixed(1)} MB, ${(bm / tm).toFixed(0)} GB/s`);
  }' "$out/ncu.csv" 2>&1 | head -30

stamp sanitizer
{
  echo "== memcheck, quick cases =="
  timeout 60 compute-sanitizer --tool memcheck --print-limit 10 node $check --addon "$addon" --group all --quick 2>&1 | grep -v '^RESULT {"group":"[a-z_]*","name":"[^"]*","ok":true'
  echo "== racecheck, shared-memory kernels =="
  timeout 45 compute-sanitizer --tool racecheck --print-limit 10 node $check --addon "$addon" --group quantized,top_k,attention --quick 2>&1 | grep -v '^RESULT {"group":"[a-z_]*","name":"[^"]*","ok":true'
} > "$out/sanitizer.log" 2>&1
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Hazard|Invalid|RESULT|==" "$out/sanitizer.log" | head -30
stamp done
