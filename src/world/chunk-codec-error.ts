// The one error type of chunk decoding: callers (hosts, the store) catch it by name and
// drop the bad payload instead of rendering garbage or crashing a worker.
import { VoxelError } from '../core/errors';

export type ChunkCodecErrorCode =
  | 'not-bytes'
  | 'truncated'
  | 'bad-version'
  | 'too-many-edits'
  | 'trailing-bytes'
  | 'duplicate-edit'
  | 'bad-block-id';

export class ChunkCodecError extends VoxelError {
  override readonly name = 'ChunkCodecError';

  constructor(
    readonly code: ChunkCodecErrorCode,
    message: string,
  ) {
    super(`chunk codec: ${message}`);
  }
}
