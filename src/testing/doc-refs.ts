// What a walk-through document (docs/EDIT-PATH.md) names in backticks, checked against the
// code: every file must exist and every function, class, method, frame or channel it names
// must be found where it says. The document is prose; this keeps its names from going stale when
// code moves or is renamed (it cannot check that a sentence describes the code truly).

/** The code a document is checked against: product files by path relative to src/ ('play/x.ts'). */
export type SourceTree = ReadonlyMap<string, string>;

const FILE = /^(?:src\/)?((?:[\w-]+\/)*[\w.-]+\.ts)$/;
const IDENT = /^([A-Za-z_]\w*)(?:\(.*\))?$/;
const MEMBER = /^([A-Z]\w*)\.([a-zA-Z_]\w*)(?:\(.*\))?$/;
const API = /^window\.voxel\.(\w+)(?:\(.*\))?$/;
/** Between a file and a name that belongs to it: `file.ts` `name`, `file.ts` (`Name`), `a` / `b`. */
const ATTACHED = /^[\s(/,]*$/;

/** Whether `name` is declared in `src`: exported, a function, or a member (method, field, event) of a type there. */
export function declares(src: string, name: string): boolean {
  const n = name.replace(/\$/g, '\\$');
  return new RegExp(`\\b(?:class|function|const|let|interface|type|enum)\\s+${n}\\b`).test(src)
    || new RegExp(`export\\s*\\{[^}]*\\b${n}\\b[^}]*\\}`).test(src)
    || new RegExp(`^\\s*(?:(?:public|private|protected|static|readonly|async|override|get|set)\\s+)*#?${n}\\s*[?!]?\\s*[(<:=]`, 'm').test(src);
}

/** The files of `tree` a name in the document means: a path ('play/x.ts'), or a bare file name found in one folder or more. */
function resolveFile(tree: SourceTree, name: string): string[] {
  if (name.includes('/')) return tree.has(name) ? [name] : [];
  return [...tree.keys()].filter((p) => p.split('/').pop() === name);
}

/**
 * Where the names of `doc` (markdown) do not hold in `tree`, one line each. `known`: other
 * names the document may give in backticks (benchmark metrics, which are keys of
 * bench/results/latest.json, not code).
 */
export function staleRefs(doc: string, tree: SourceTree, known: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  const spans = [...doc.matchAll(/`([^`\n]+)`/g)].map((m) => ({ text: m[1]!, start: m.index, end: m.index + m[0].length }));
  let owner: string[] = [];
  let ownerEnd = -1;
  const anywhere = (name: string) => [...tree.values()].some((src) => declares(src, name));
  for (const s of spans) {
    const attached = ownerEnd >= 0 && ATTACHED.test(doc.slice(ownerEnd, s.start));
    const file = FILE.exec(s.text);
    if (file) {
      owner = resolveFile(tree, file[1]!);
      ownerEnd = s.end;
      if (owner.length === 0) out.push(`${s.text}: no such file`);
      continue;
    }
    const member = MEMBER.exec(s.text);
    const api = API.exec(s.text);
    const ident = IDENT.exec(s.text);
    if (member) {
      const [, cls, m] = member;
      const homes = [...tree.values()].filter((src) => new RegExp(`export\\s+(?:(?:abstract\\s+)?class|interface)\\s+${cls}\\b`).test(src));
      if (homes.length === 0) out.push(`${s.text}: no exported class or interface ${cls}`);
      else if (!homes.some((src) => declares(src, m!))) out.push(`${s.text}: ${cls} has no ${m}`);
    } else if (api) {
      const voxel = tree.get('app/voxel-api.ts') ?? '';
      if (!declares(voxel, api[1]!)) out.push(`${s.text}: not in app/voxel-api.ts`);
    } else if (ident && /^\s+channels?\b/.test(doc.slice(s.end, s.end + 10))) {
      // `name` channel: one of the app channels a DHT node carries.
      if (!declares(tree.get('dht/app-channels.ts') ?? '', ident[1]!)) out.push(`${s.text}: no such channel in dht/app-channels.ts`);
    } else if (ident && known.has(ident[1]!)) {
      // A name the caller vouches for.
    } else if (ident) {
      const name = ident[1]!;
      if (attached && owner.length > 0) {
        if (!owner.some((p) => declares(tree.get(p)!, name))) out.push(`${s.text}: not in ${owner.join(' or ')}`);
        ownerEnd = s.end;
        continue;
      }
      if (/^[A-Z][A-Z_]+$/.test(name)) {
        // A frame or message type (its tag is a string in the code) or a constant.
        if (![...tree.values()].some((src) => src.includes(`'${name}'`)) && !anywhere(name)) out.push(`${s.text}: no frame, tag or constant ${name}`);
      } else if (!anywhere(name) && ![...tree.values()].some((src) => src.includes(`'${name}'`))) {
        out.push(`${s.text}: declared nowhere in src/`);
      }
    }
    owner = [];
    ownerEnd = -1;
  }
  return out;
}
