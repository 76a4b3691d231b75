// Invite links. An invite is a page URL whose fragment (never sent to a server) names the
// world and seed, the doorways the inviter stands at (relay, PeerJS broker), the inviter's
// node id and a few of its live contacts, so a newcomer can still join when the inviter
// has left. The inviter signs all of it with its node key (the key its id is derived from), so a
// link altered on the way (another relay, other peers, another seed) is told apart from a
// hand-written one and refused with a clear message. An unsigned `peer=` fragment (hand
// written, older links) is still accepted.
import * as v from 'valibot';
import { verifySignature, type IdentityAlg } from '../core/identity';
import { publicKeyMatchesId } from '../core/key-ids';
import { hexToId, idToHex } from '../core/node-id';
import type { Signer } from '../core/signer';

/** Contacts an invite carries besides the inviter (each ~41 characters of URL). */
export const INVITE_CONTACTS = 4;

const Hex40 = v.pipe(v.string(), v.regex(/^[0-9a-f]{40}$/, 'a node id is 40 hex digits'));
const B64Url = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{16,200}$/, 'not a base64url value'));
const WsUrl = v.pipe(v.string(), v.maxLength(300), v.regex(/^(wss?:\/\/\S+|none)$/, 'the relay must be a ws:// or wss:// address'));
const HttpUrl = v.pipe(v.string(), v.maxLength(300), v.regex(/^https?:\/\/[^\s/]+(\/\S*)?$/, 'the PeerJS broker must be an http(s):// address'));

/** The fragment fields of an invite, as they arrive (strings), checked. */
const InviteFields = v.object({
  world: v.pipe(v.string(), v.regex(/^[\w.-]{1,64}$/, 'the world name is not valid')),
  seed: v.pipe(v.string(), v.maxLength(128, 'the seed is too long')),
  relay: v.optional(WsUrl),
  peerjs: v.optional(HttpUrl),
  peer: Hex40,
  peers: v.optional(v.pipe(v.string(), v.maxLength(41 * INVITE_CONTACTS), v.regex(/^([0-9a-f]{40})(,[0-9a-f]{40})*$/, 'the contact list is not a list of node ids'))),
  alg: v.optional(v.picklist(['ed', 'p256'], 'unknown signature algorithm')),
  key: v.optional(B64Url),
  sig: v.optional(B64Url),
});

export interface Invite {
  world: string;
  seed: string;
  relay: string | undefined;
  peerjs: string | undefined;
  inviter: string;
  contacts: string[];
  signature: { alg: IdentityAlg; key: Uint8Array; sig: Uint8Array } | undefined;
}

export type InviteParse =
  | { kind: 'none' }
  | { kind: 'invite'; invite: Invite }
  | { kind: 'malformed'; reason: string };

const b64url = (b: Uint8Array): string => btoa(String.fromCharCode(...b)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const unb64url = (s: string): Uint8Array => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

function signedText(i: Pick<Invite, 'world' | 'seed' | 'relay' | 'peerjs' | 'inviter' | 'contacts'>): Uint8Array {
  return new TextEncoder().encode(['voxel-populi invite 1', i.world, i.seed, i.relay ?? '', i.peerjs ?? '', i.inviter, i.contacts.join(',')].join('\n'));
}

/**
 * The invite in a fragment, if any. A fragment without `peer` is no invite (a plain world
 * link); one with `peer` must be whole: the fields checked, a signature complete.
 */
export function parseInvite(fragment: string): InviteParse {
  const params = new URLSearchParams(fragment.replace(/^#/, ''));
  if (!params.has('peer')) return { kind: 'none' };
  const raw: Record<string, string> = {};
  for (const k of ['peer', 'peers', 'alg', 'key', 'sig', 'relay', 'peerjs', 'seed']) {
    const all = params.getAll(k);
    if (all.length > 1) return { kind: 'malformed', reason: `the link names "${k}" twice` };
    if (all.length === 1) raw[k] = all[0]!;
  }
  raw.world = params.get('world') ?? 'populi';
  raw.seed ??= raw.world;
  const parsed = v.safeParse(InviteFields, raw);
  if (!parsed.success) return { kind: 'malformed', reason: parsed.issues[0]?.message ?? 'the link is not valid' };
  const fields = parsed.output;
  const signed = [fields.alg, fields.key, fields.sig].filter((x) => x !== undefined).length;
  if (signed !== 0 && signed !== 3) return { kind: 'malformed', reason: 'the link is cut short (its signature is incomplete)' };
  const contacts = fields.peers ? fields.peers.split(',').filter((c) => c !== fields.peer) : [];
  return {
    kind: 'invite',
    invite: {
      world: fields.world, seed: fields.seed, relay: fields.relay, peerjs: fields.peerjs, inviter: fields.peer, contacts: [...new Set(contacts)],
      signature: signed ? { alg: fields.alg === 'ed' ? 'Ed25519' : 'ECDSA-P256', key: unb64url(fields.key!), sig: unb64url(fields.sig!) } : undefined,
    },
  };
}

/** 'signed': the inviter's key signed exactly this; 'unsigned': no signature; 'tampered': a signature that does not hold. */
export async function checkInvite(i: Invite): Promise<'signed' | 'unsigned' | 'tampered'> {
  if (!i.signature) return 'unsigned';
  const { alg, key, sig } = i.signature;
  if (!(await publicKeyMatchesId('node', key, hexToId(i.inviter), 'invite'))) return 'tampered';
  return (await verifySignature(alg, key, signedText(i), sig)) ? 'signed' : 'tampered';
}

export interface InviteContent {
  world: string;
  seed: string;
  relay: string | undefined;
  peerjs: string | undefined;
  contacts: string[];
}

/** A signed invite link to `pageUrl` from `signer` (the inviting tab's node identity). */
export async function makeInvite(pageUrl: string, c: InviteContent, signer: Signer): Promise<string> {
  const inviter = idToHex(signer.id);
  const contacts = c.contacts.filter((x) => x !== inviter).slice(0, INVITE_CONTACTS);
  const content = { ...c, inviter, contacts };
  const sig = await signer.sign(signedText(content));
  const params = new URLSearchParams({ world: c.world, seed: c.seed });
  if (c.relay) params.set('relay', c.relay);
  if (c.peerjs) params.set('peerjs', c.peerjs);
  params.set('peer', inviter);
  if (contacts.length) params.set('peers', contacts.join(','));
  params.set('alg', signer.alg === 'Ed25519' ? 'ed' : 'p256');
  params.set('key', b64url(signer.publicKey));
  params.set('sig', b64url(sig));
  const link = new URL(pageUrl);
  link.hash = params.toString();
  return link.toString();
}
