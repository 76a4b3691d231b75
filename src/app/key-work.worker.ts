// Worker side of key-work-minter.ts: finds the player key's proof of work off the page's
// main thread, so a drawing tab keeps its frames while a new profile mints (~1 s).
import { mintWork } from '../core/key-work';

const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<{ key: Uint8Array; bits: number }>) => void) | null; postMessage(m: { nonce: number }): void };

scope.onmessage = (e) => scope.postMessage({ nonce: mintWork(e.data.key, e.data.bits) });
