#!/usr/bin/env bash
# Bundles the GPU conformance runner into .gpu-bundle/conformance-gpu.mjs (webgpu and the .node addon stay
# external: the GPU kit restores webgpu there, and the addon is built there with nvcc).
set -euo pipefail
cd "$(dirname "$0")/../../.."
mkdir -p .gpu-bundle
npx esbuild test/conformance/gpu/run-on-gpu.ts --bundle --platform=node --format=esm --target=node20 --conditions=@tandem/source \
  --external:webgpu --outfile=.gpu-bundle/conformance-gpu.mjs \
  --banner:js="import { createRequire as __cr } from 'module'; const require = __cr(import.meta.url);" --log-level=warning
echo "bundled .gpu-bundle/conformance-gpu.mjs ($(du -h .gpu-bundle/conformance-gpu.mjs | cut -f1))"
