// The inventory bar: what the player holds, above the block hotbar at the bottom of the
// screen, one slot per item (a swatch of the item's colour and its kind), the selected one
// outlined; Q drops it, E selects the next. Fed by the app from whatever holds the items
// (the one-tab ledger today, the region's ledger later); the bar only shows.
import type { ItemKind } from '../agree/item-kinds';
import { ITEM_COLOURS } from '../render/item-models';

/** Slots shown; more held items are summed up in the last one. */
export const INVENTORY_SLOTS = 9;

export interface HeldItem {
  id: string;
  kind: ItemKind;
}

export class InventoryBar {
  readonly element: HTMLElement;
  private readonly hint: HTMLElement;
  private shown = '';

  constructor(root: HTMLElement) {
    this.element = document.createElement('div');
    this.element.className = 'inventory';
    Object.assign(this.element.style, {
      position: 'absolute', bottom: '72px', left: '50%', transform: 'translateX(-50%)', display: 'flex', gap: '4px',
      padding: '3px', borderRadius: '6px', background: 'rgba(0,0,0,.35)', alignItems: 'center', font: '11px sans-serif', color: '#fff',
    });
    this.hint = document.createElement('span');
    this.hint.textContent = 'Q drop · E next';
    this.hint.style.padding = '0 6px';
    root.appendChild(this.element);
    this.show([], 0);
  }

  /** Shows the held items with `selected` outlined (hidden when nothing is held). Cheap when nothing changed. */
  show(items: readonly HeldItem[], selected: number): void {
    const key = `${selected} ${items.map((i) => `${i.id}:${i.kind}`).join(',')}`;
    if (key === this.shown) return;
    this.shown = key;
    this.element.replaceChildren();
    this.element.hidden = items.length === 0;
    this.element.style.display = items.length === 0 ? 'none' : 'flex';
    items.slice(0, INVENTORY_SLOTS).forEach((it, i) => {
      const slot = document.createElement('div');
      slot.className = i === selected ? 'item-slot selected' : 'item-slot';
      slot.dataset.id = it.id;
      slot.dataset.kind = it.kind;
      slot.title = `${it.kind} (${it.id})`;
      const colour = `#${ITEM_COLOURS[it.kind].toString(16).padStart(6, '0')}`;
      Object.assign(slot.style, {
        width: '34px', height: '34px', borderRadius: '4px', display: 'flex', alignItems: 'flex-end', justifyContent: 'center',
        background: `radial-gradient(circle at 50% 40%, ${colour} 0 30%, rgba(255,255,255,.08) 32%)`,
        border: i === selected ? '2px solid #fff' : '2px solid rgba(255,255,255,.25)',
      });
      const label = document.createElement('span');
      label.textContent = i === INVENTORY_SLOTS - 1 && items.length > INVENTORY_SLOTS ? `+${items.length - i}` : it.kind;
      label.style.fontSize = '9px';
      label.style.textShadow = '0 0 2px #000';
      slot.appendChild(label);
      this.element.appendChild(slot);
    });
    this.element.appendChild(this.hint);
  }

  /** The ids shown, in order (tests read the bar as a player sees it). */
  ids(): string[] {
    return [...this.element.querySelectorAll<HTMLElement>('.item-slot')].map((s) => s.dataset.id!);
  }
}
