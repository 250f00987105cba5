// The process environment a bench run needs before any suite loads a backend.

/**
 * Without --gpu, WebGPU runs on SwiftShader: sets TANDEM_WEBGPU=swiftshader in `env` unless it is set already. Call it
 * before the first engine: the first engine that loads Dawn fixes its Vulkan driver for the whole process (under
 * `all`, the scheduler suite's engine loaded it first without SwiftShader, and every later suite found no adapter).
 */
export function softwareGpuUnlessGpu(gpu: boolean, env: Record<string, string | undefined>): void {
  if (!gpu && env['TANDEM_WEBGPU'] === undefined) env['TANDEM_WEBGPU'] = 'swiftshader';
}
