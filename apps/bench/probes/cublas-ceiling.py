# Ceilings for the ROCm backend's benchmarks, measured through PyTorch on the GPU machine (cuBLAS, TF32 off):
# SGEMM 4096, a 1 GiB elementwise scale (read + write), f32 GEMV 1M x 768 (the cosine search's byte stream) and
# 11008 x 4096 (the mat-vec's shape, in f32). Median of CUDA-event timings after warm-up; prints one JSON object.
import json
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")


def median_ms(fn, runs=20, warmup=5):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}
n = 4096
a = torch.rand(n, n, device=dev) * 2 - 1
b = torch.rand(n, n, device=dev) * 2 - 1
ms = median_ms(lambda: torch.mm(a, b))
out["sgemm_4096"] = {"ms": ms, "tflops": 2 * n**3 / (ms * 1e-3) / 1e12}
del a, b

x = torch.rand(256 * 1024 * 1024, device=dev)
ms = median_ms(lambda: x.mul(1.5))
out["scale_1GiB"] = {"ms": ms, "tbps": 2 * x.numel() * 4 / (ms * 1e-3) / 1e12}
del x

t = torch.rand(1_000_000, 768, device=dev)
q = torch.rand(768, device=dev)
ms = median_ms(lambda: torch.mv(t, q))
out["gemv_1Mx768"] = {"ms": ms, "tbps": t.numel() * 4 / (ms * 1e-3) / 1e12}
del t

ws = [torch.rand(11008, 4096, device=dev) for _ in range(4)]
v = torch.rand(4096, device=dev)
i = [0]


def rotating_mv():
    i[0] = (i[0] + 1) % len(ws)
    torch.mv(ws[i[0]], v)


ms = median_ms(rotating_mv, runs=40)
out["gemv_11008x4096_f32"] = {"ms": ms, "gbps": 11008 * 4096 * 4 / (ms * 1e-3) / 1e9}
print(json.dumps(out))
