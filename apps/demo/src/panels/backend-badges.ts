// The header's backend badges: each backend's kind, device and live state, redrawn from the worker's notices (a
// loss shows as unhealthy at once, a recovery as healthy); a software GPU says so.
import { el } from '../dom.ts';
import type { BackendView } from '../worker/protocol.ts';
import { backendColour } from './backend-colours.ts';

/** The device part of a badge. */
function deviceText(b: BackendView): string {
  if (!b.available) return `unavailable: ${b.why ?? ''}`;
  const device = b.device ?? '';
  return b.software ? `${device} (software GPU: emulated on the CPU)` : device;
}

/** Draws the badges into `list`. */
export function showBackendBadges(list: HTMLUListElement, backends: readonly BackendView[]): void {
  list.replaceChildren(
    ...backends.map((b) =>
      el(
        'li',
        {
          'data-backend': b.name,
          'data-available': String(b.available),
          'data-state': b.state,
          'data-software': String(b.software),
          style: `border-color:${backendColour(b.name)}`,
        },
        [
          el('strong', { text: b.name }),
          ` ${b.kind} · ${deviceText(b)} · `,
          el('span', {
            class: 'state',
            text:
              b.state === 'healthy' || !b.available
                ? b.available
                  ? 'healthy'
                  : ''
                : `${b.state}${b.why === undefined ? '' : `: ${b.why}`}`,
          }),
        ],
      ),
    ),
  );
}
