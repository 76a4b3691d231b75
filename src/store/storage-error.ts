// Storage failures (quota exceeded, private mode, a blocked upgrade) are shown to the
// player, never swallowed: this error carries a message a person can act on.
import { VoxelError } from '../core/errors';

export class StorageError extends VoxelError {
  readonly code = 'storage-failed';
  override readonly name = 'StorageError';
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}

export function explainStorageFailure(action: string, err: unknown): StorageError {
  const name = (err as { name?: string } | null)?.name ?? '';
  const detail = err instanceof Error ? err.message : String(err);
  if (name === 'QuotaExceededError') {
    return new StorageError(`Could not ${action}: the browser's storage quota is full. Free space or allow more storage for this site.`, err);
  }
  if (name === 'InvalidStateError' || name === 'SecurityError' || /indexeddb/i.test(detail)) {
    return new StorageError(`Could not ${action}: this browser does not allow storage here (private mode or blocked site data). Your edits will not be kept.`, err);
  }
  return new StorageError(`Could not ${action}: ${detail}`, err);
}
