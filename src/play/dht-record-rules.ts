// The owner rules a peer's DHT node runs with (src/dht/record-rules.ts): the DHT sits above
// the layers that know what its values are, so the composition root hands them in
// (app/net-session.ts and app/headless-peer.ts: `Peer.start`'s `records`).
// - 'player': the player's own signed record (src/play/player-record.ts): the key is the
//   player id, the public key must hash to it and sign the record; version = updatedAt.
// - 'chunk' and 'edits' (region location records, published edit logs): signed by a
//   primary whose epoch certificate for the region is valid (src/region/region-records.ts);
//   version = (certificate epoch, revision within it).
// - 'test': the default rule.
import { ID_WORK_BITS } from '../core/id-work';
import { webCryptoVerifier } from '../core/signer';
import { NOBODY_NEAR } from '../dht/near-view';
import type { RecordRule, RecordRules } from '../dht/record-rules';
import { CertChecker } from '../region/cert-checker';
import { regionRecordRules } from '../region/region-records';
import { PlayerRecordError, verifyPlayerRecord } from './player-record';

/** A player record is valid for the player id it is stored under; newer updatedAt wins. */
export function playerRecordRule(now: () => number = Date.now): RecordRule {
  return {
    async check(key, value) {
      try {
        const r = await verifyPlayerRecord(value, key, { now: now() });
        return { ok: true, version: r.updatedAt };
      } catch (e) {
        return { ok: false, reason: e instanceof PlayerRecordError ? e.reason : 'malformed' };
      }
    },
  };
}

/**
 * Every namespace's rule for a tab's DHT; `extra` adds or replaces rules (tests, tools). A
 * holder checks a region record's certificate against its own view of the key, counting
 * near only ids that show `idWorkBits` of work: the bits that DHT asks (its default).
 */
export function recordRules(extra: RecordRules = {}, idWorkBits = ID_WORK_BITS): RecordRules {
  return { player: playerRecordRule(), ...regionRecordRules(new CertChecker(webCryptoVerifier, NOBODY_NEAR, { idWorkBits }), webCryptoVerifier), ...extra };
}
