// Entry point of the GPU process: forked by createProcessWebGpuBackend with an IPC channel, it loads dawn.node
// (after pointing Vulkan at SwiftShader when asked) and serves the parent's requests until 'dispose' or until
// the parent goes away. Plain Node runs it once bundled (see README.md in this folder); tsx runs the source.
import { createNodeWebGpuBackend } from '../node-gpu.ts';
import { useSwiftShader } from '../swiftshader.ts';
import { GpuProcessServer, type BackendFactory } from './child-server.ts';

/** The in-process backend for a setup; SwiftShader is configured first, in this process, when asked for. */
const createBackend: BackendFactory = (setup) => {
  if (setup.swiftShader) {
    const software = useSwiftShader();
    if (!software.ok) return { failed: `SwiftShader unavailable in the GPU process: ${software.reason}` };
  }
  return createNodeWebGpuBackend({
    ...(setup.dawnFlags === undefined ? {} : { dawnFlags: setup.dawnFlags }),
    ...(setup.powerPreference === undefined ? {} : { powerPreference: setup.powerPreference }),
    ...(setup.maxPooledBytes === undefined ? {} : { maxPooledBytes: setup.maxPooledBytes }),
  });
};

const send = process.send?.bind(process);
if (send === undefined) {
  process.stderr.write(
    'gpu-process: this is the GPU process entry; start it through createProcessWebGpuBackend (it needs an IPC channel)\n',
  );
  process.exit(2);
} else {
  const server = new GpuProcessServer(createBackend, {
    send: (reply, sent) => {
      send(reply, undefined, {}, () => sent?.());
    },
    exit: (code) => process.exit(code),
  });
  process.on('message', (message) => server.handle(message));
  // The parent closed the channel or died: nothing is left to serve, and an orphan would hold the GPU.
  process.on('disconnect', () => process.exit(0));
}
