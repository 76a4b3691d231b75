// How the stores commit a write. 'strict' makes the browser flush to disk before the
// transaction's complete event: a promise, a grant, a region's state or a player's edit
// that we call stored must survive a power cut or an OS crash, not only a tab crash
// (Chromium's default, 'relaxed', completes once the data reached the OS). The cost is
// measured side by side by `npm run bench -- durability` (docs/BENCHMARKS.md).
export const WRITE_DURABILITY: IDBTransactionDurability = 'strict';
