// A node identity of the old kind, for tests that it is refused and that a stored one is
// minted anew: its id is SHA-256 of its key (what a node id was before it was derived
// through scrypt, core/key-ids.ts) and shows 14 bits of the id puzzle (core/id-work.ts), so
// only the derivation tells it apart. `asOldKind` presents it as it would present itself: a
// player-kind identity (its id the SHA-256 of the key). A test-only key: it is public.
import { identityFromJson, type Identity, type IdentityJson } from '../core/identity';

export const OLD_NODE_IDENTITY: IdentityJson = {"v": 1, "alg": "Ed25519", "privateJwk": {"key_ops": ["sign"], "ext": true, "crv": "Ed25519", "d": "AiMjS-9yejun1UI7d9Fw-y4yGKj_mfXqUEpmE4Xab0s", "x": "z2stIf4tY8oYt-BfT3E1xIFU1ougTIjbPzamsUxFLfY", "kty": "OKP", "alg": "Ed25519"}, "publicJwk": {"key_ops": ["verify"], "ext": true, "crv": "Ed25519", "x": "z2stIf4tY8oYt-BfT3E1xIFU1ougTIjbPzamsUxFLfY", "kty": "OKP", "alg": "Ed25519"}};

/** The old-kind identity under its old id (SHA-256 of the key), as a peer from before would speak. */
export function oldKindIdentity(): Promise<Identity> {
  return identityFromJson(OLD_NODE_IDENTITY, 'player');
}
