// The edit-error family: one base to catch, a stable code on each member.
import { describe, expect, it } from 'vitest';
import { EditError, EditRefused, EditRejectedError, EditTimeoutError } from './edit-error';
import { EditRejectedError as HostRejected } from '../play/region-client';
import { BlockEditor, EditRefused as PlayRefused } from '../play/block-editor';

describe('edit errors', () => {
  it('are one family with stable codes', () => {
    const all: EditError[] = [new EditRefused('not-loaded', 'chunk 3,4 is not loaded'), new HostRejected('rate'), new EditTimeoutError('edit at 1,2,3 not confirmed')];
    expect(all.every((e) => e instanceof EditError && e instanceof Error)).toBe(true);
    expect(all.map((e) => e.code)).toEqual(['not-loaded', 'rate', 'timeout']);
    expect(all.map((e) => e.name)).toEqual(['EditRefused', 'EditRejectedError', 'EditTimeoutError']);
    // The host's refusal is the family's, and keeps its `reason` (play/tentative-edits.ts reads it).
    expect(new HostRejected('uncertified')).toBeInstanceOf(EditRejectedError);
    expect(new HostRejected('uncertified').reason).toBe('uncertified');
    expect(PlayRefused).toBe(EditRefused);
    expect(typeof BlockEditor).toBe('function');
  });
});
