// The "Download Chrome trace" button: engine.telemetry.toChromeTrace() as a JSON file (open in Perfetto).
import type { Engine } from '@tandem/core';
import { byId } from '../dom.ts';

/** Wires the trace button. */
export function setUpTraceDownload(engine: Engine): void {
  byId('trace-download', HTMLButtonElement).addEventListener('click', () => {
    const json = JSON.stringify(engine.telemetry.toChromeTrace());
    const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `tandem-trace-${new Date().toISOString().replaceAll(':', '-')}.json`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
}
