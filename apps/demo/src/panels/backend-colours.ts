// One colour per backend, shared by every chart and table of the demo.

const COLOURS: Readonly<Record<string, string>> = {
  webgpu: '#d9480f',
  wasm: '#1971c2',
  reference: '#5c940d',
  rocm: '#862e9c',
};
const SPARE = ['#0b7285', '#e67700', '#a61e4d', '#364fc7'];

/** The colour of a backend's points, lines and badges. */
export function backendColour(backend: string): string {
  const known = COLOURS[backend];
  if (known !== undefined) return known;
  let hash = 0;
  for (let i = 0; i < backend.length; i++) hash = (hash * 31 + backend.charCodeAt(i)) >>> 0;
  return SPARE[hash % SPARE.length] ?? '#495057';
}
