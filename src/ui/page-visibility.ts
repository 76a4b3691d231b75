// The document's visibility as the tab's clock reads it (core/tab-clock.ts): the worker
// sweeps its timers only while the page is hidden.
import type { PageVisibility } from '../core/tab-clock';

export function documentVisibility(doc: Document = document): PageVisibility {
  return { get hidden() { return doc.hidden; }, onChange: (fn) => doc.addEventListener('visibilitychange', fn) };
}
