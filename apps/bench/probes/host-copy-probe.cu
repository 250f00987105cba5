// host-copy-probe.cu: device-to-host and host-to-device copy time per kind of host memory (fresh calloc'd, reused
// pageable, pinned, pinned then memcpy), the measurement behind native-rocm/src/host_pool.h. NVIDIA only:
//   nvcc -O2 -o /tmp/host-copy-probe apps/bench/probes/host-copy-probe.cu && /tmp/host-copy-probe
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <chrono>
static double now() { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main() {
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  size_t sizes[] = {256 << 10, 1 << 20, 4 << 20, 8 << 20, 32 << 20};
  for (size_t n : sizes) {
    void* d; cudaMalloc(&d, n); cudaMemset(d, 1, n);
    void* pinned; cudaHostAlloc(&pinned, n, cudaHostAllocDefault);
    void* reused = malloc(n); memset(reused, 0, n);
    std::vector<double> a, b, c, dd, e, f, g, h;
    for (int r = 0; r < 41; r++) {
      double t0 = now(); void* fresh = calloc(n, 1); cudaMemcpyAsync(fresh, d, n, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); a.push_back(now() - t0); free(fresh);
      t0 = now(); cudaMemcpyAsync(reused, d, n, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); b.push_back(now() - t0);
      t0 = now(); cudaMemcpyAsync(pinned, d, n, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); c.push_back(now() - t0);
      t0 = now(); cudaMemcpyAsync(pinned, d, n, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); fresh = calloc(n, 1); memcpy(fresh, pinned, n); dd.push_back(now() - t0); free(fresh);
      t0 = now(); cudaMemcpyAsync(pinned, d, n, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); memcpy(reused, pinned, n); e.push_back(now() - t0);
      t0 = now(); fresh = calloc(n, 1); memset(fresh, 1, n); f.push_back(now() - t0); free(fresh);
      t0 = now(); cudaMemcpyAsync(d, reused, n, cudaMemcpyHostToDevice, s); cudaStreamSynchronize(s); g.push_back(now() - t0);
      t0 = now(); cudaMemcpyAsync(d, pinned, n, cudaMemcpyHostToDevice, s); cudaStreamSynchronize(s); h.push_back(now() - t0);
    }
    printf("%6zu KiB  D2H fresh-calloc %.3f  reused-pageable %.3f  pinned %.3f  pinned+memcpy-fresh %.3f  pinned+memcpy-reused %.3f  | calloc+touch %.3f | H2D pageable %.3f pinned %.3f ms\n",
           n >> 10, med(a), med(b), med(c), med(dd), med(e), med(f), med(g), med(h));
    void* p2; double t0 = now(); cudaHostAlloc(&p2, n, cudaHostAllocDefault); double alloc = now() - t0; t0 = now(); cudaFreeHost(p2); double fr = now() - t0;
    printf("         cudaHostAlloc %.3f ms, cudaFreeHost %.3f ms\n", alloc, fr);
    cudaFree(d); cudaFreeHost(pinned); free(reused);
  }
  return 0;
}
