// The "Download Chrome trace" button: the engine's telemetry.toChromeTrace(), from the worker, as a JSON file
// (open in Perfetto: one track per concurrent lane of each backend).
import { byId } from '../dom.ts';
import type { EngineClient } from '../worker/client.ts';

/** Wires the trace button. */
export function setUpTraceDownload(client: EngineClient): void {
  byId('trace-download', HTMLButtonElement).addEventListener('click', () => {
    void client.call('trace', {}).then((json) => {
      const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `tandem-trace-${new Date().toISOString().replaceAll(':', '-')}.json`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });
  });
}
