// One family for the errors this code throws: each carries a stable `code` for programs (the
// HUD's words for players, bots, tests) beside its message for people, which may change.
// Subclasses fix their code (`'link-closed'`) or take it from the reason they report
// (EditError: the wire's reject reason; CodecError: `codec-` and its reason). Codes are
// kebab-case and never reused for another meaning; src/core/errors.test.ts checks that every
// error class of src/ belongs to the family.

export abstract class VoxelError extends Error {
  abstract readonly code: string;
}

/** The stable code of `err` when it belongs to the family, else undefined (a platform error, a string). */
export function errorCode(err: unknown): string | undefined {
  return err instanceof VoxelError ? err.code : undefined;
}
