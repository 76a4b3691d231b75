// What a line typed into the chat field asks for, without a DOM: a line to the players
// around, or a direct message (`/msg NAME text`, also `/tell` and `/w`; `/r text` answers
// the last player who wrote to us). The recipient is looked up among the players the
// who-is-here list shows. Names may hold spaces, so the longest listed name the line starts
// with is taken; two players may share a name, so `NAME#abc123` (or `#abc123` alone) picks
// one by the short id the list shows beside it, and a shared name without one is refused
// with the ids to choose from.

/** A player the who list shows (ui/who-list.ts WhoRow): node id (hex), its short form, name. */
export interface ChatTarget {
  id: string;
  shortId: string;
  name: string;
}

export type ChatCommand =
  | { kind: 'say'; text: string }
  | { kind: 'dm'; to: ChatTarget; text: string }
  | { kind: 'refused'; reason: string };

const DM_COMMANDS = ['/msg', '/tell', '/w'];
const USAGE = 'Write /msg NAME text (Tab shows who is here), or /r text to answer';

/** The command in `typed`; `last` is the player whose message came last (for /r). */
export function parseChatCommand(typed: string, players: readonly ChatTarget[], last?: ChatTarget): ChatCommand {
  const line = typed.trim();
  if (!line.startsWith('/')) return { kind: 'say', text: typed };
  // '//' says a line that starts with '/'.
  if (line.startsWith('//')) return { kind: 'say', text: line.slice(1) };
  const [word = '', ...words] = line.split(' ');
  const rest = words.join(' ').trim();
  const command = word.toLowerCase();
  if (command === '/r') {
    if (!last) return { kind: 'refused', reason: 'Nobody has written to you yet' };
    return rest ? { kind: 'dm', to: last, text: rest } : { kind: 'refused', reason: 'Write /r and your answer' };
  }
  if (!DM_COMMANDS.includes(command)) return { kind: 'refused', reason: `No command ${word}. ${USAGE}` };
  if (!rest) return { kind: 'refused', reason: USAGE };
  return direct(rest, players);
}

function direct(rest: string, players: readonly ChatTarget[]): ChatCommand {
  const lower = rest.toLowerCase();
  // By short id alone: '#abc123 text'.
  const byId = /^#([0-9a-f]{2,40})(?: (.*))?$/i.exec(rest);
  if (byId) return pick(players.filter((p) => p.id.startsWith(byId[1]!.toLowerCase())), `#${byId[1]}`, byId[2] ?? '');
  // The longest name listed that the line starts with, followed by '#id', a space or nothing.
  const names = [...new Set(players.map((p) => p.name))].sort((a, b) => b.length - a.length);
  for (const name of names) {
    if (!lower.startsWith(name.toLowerCase())) continue;
    const after = rest.slice(name.length);
    const withId = /^#([0-9a-f]{1,40})(?: (.*))?$/i.exec(after);
    const same = players.filter((p) => p.name === name);
    if (withId) return pick(same.filter((p) => p.id.startsWith(withId[1]!.toLowerCase())), `${name}#${withId[1]}`, withId[2] ?? '');
    if (after !== '' && !after.startsWith(' ')) continue;
    return pick(same, name, after.trim());
  }
  const who = rest.split(' ')[0]!;
  return { kind: 'refused', reason: `Nobody called ${who} is here (Tab shows who is)` };
}

function pick(found: readonly ChatTarget[], asked: string, text: string): ChatCommand {
  if (found.length === 0) return { kind: 'refused', reason: `Nobody called ${asked} is here (Tab shows who is)` };
  if (found.length > 1) {
    const name = found[0]!.name;
    const ids = found.slice(0, 4).map((p) => `${p.name}#${p.shortId}`).join(', ');
    const said = found.every((p) => p.name === name) ? `are called ${name}` : `match ${asked}`;
    return { kind: 'refused', reason: `${found.length} players ${said}: write one of ${ids}` };
  }
  const to = found[0]!;
  if (!text.trim()) return { kind: 'refused', reason: `What do you want to say to ${to.name}?` };
  return { kind: 'dm', to, text: text.trim() };
}

/** The start of a message to `to` as the chat field shows it, ready for the text. */
export function directMessagePrefix(to: ChatTarget): string {
  return `/msg ${to.name}#${to.shortId} `;
}
