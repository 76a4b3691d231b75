// docs/EDIT-PATH.md walks an edit and a step through the code by file and function name;
// every name it gives in backticks must still be there (src/testing/doc-refs.ts), so a move
// or rename that leaves the walk-through behind fails here.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSources } from './testing/import-graph';
import { staleRefs } from './testing/doc-refs';

const SRC = resolve(import.meta.dirname);

describe('docs/EDIT-PATH.md', () => {
  it('names only files, functions, classes, methods, frames and channels that exist where it says', () => {
    const tree = new Map([...readSources(SRC)].filter(([p]) => !p.endsWith('.test.ts')).map(([p, s]) => [relative(SRC, p), s] as const));
    const doc = readFileSync(resolve(SRC, '../docs/EDIT-PATH.md'), 'utf8');
    expect((doc.match(/`[^`\n]+\.ts`/g) ?? []).length).toBeGreaterThan(50);
    expect(staleRefs(doc, tree)).toEqual([]);
  });

  it('the check finds a missing file, a name its file lacks, a missing class member, frame, name and channel', () => {
    const tree = new Map([
      ['host/primary-duty.ts', 'export class PrimaryDuty {\n  queueEdit(e: Edit): void {}\n  private move(m: Move) {}\n}'],
      ['play/block-editor.ts', 'export class BlockEditor {\n  async setBlock(x: number) {}\n}\nexport class EditRefused extends Error {}'],
      ['region/messages.ts', "const EDIT = v.literal('EDIT');"],
      ['dht/app-channels.ts', 'export const CHANNELS = {\n  region: 2,\n  replica: 4,\n} as const;'],
    ]);
    const doc = [
      '1. `host/primary-duty.ts`: `queueEdit`, then `move`; `host/commit-pipeline.ts` runs it.',
      '2. `primary-duty.ts` `onReplicate` and (`BlockEditor.setBlock(x, y)`, `BlockEditor.undo()`).',
      '3. `EDIT` and `CONFIRM` frames; `EditRefused`, `EditError`; `play/block-editor.ts` (`BlockEditor`).',
      '4. sent on the `host` channel (`region` and `replica` channels are).',
    ].join('\n');
    expect(staleRefs(doc, tree)).toEqual([
      'host/commit-pipeline.ts: no such file',
      'onReplicate: not in host/primary-duty.ts',
      'BlockEditor.undo(): BlockEditor has no undo',
      'CONFIRM: no frame, tag or constant CONFIRM',
      'EditError: declared nowhere in src/',
      'host: no such channel in dht/app-channels.ts',
    ]);
  });
});
