import { button, el, placeChildren } from './dom';
import type { Trans } from './i18n';

export interface ITabSpec<T extends string> {
  name: T;
  label: string;
  /** The id of the view (role=tabpanel) the tab controls. */
  panelId: string;
}

/**
 * The panel's tabs in one row at any width (250 px is the sidebar's default
 * and least): the tabs that do not fit go into a "More" menu, the selected one
 * always stays in the row. An ARIA tablist: one Tab stop (the selected tab),
 * ArrowLeft/ArrowRight go to the previous/next tab, Home/End to the first/last,
 * through the tabs in the menu too (the one reached comes into the row).
 */
export class TabStrip<T extends string> {
  readonly node: HTMLDivElement;

  constructor(
    private readonly trans: Trans,
    private readonly specs: ITabSpec<T>[],
    private readonly onSelect: (name: T) => void
  ) {
    this._list = el('div', {
      className: 'jm-tabs',
      attrs: {
        role: 'tablist',
        'aria-label': trans.__('Agent Memory'),
        'aria-orientation': 'horizontal'
      }
    });
    for (const spec of specs) {
      const tab = button(spec.label, () => this.select(spec.name), {
        className: `jm-tab jm-tab-${spec.name}`,
        attrs: {
          role: 'tab',
          id: `jm-tab-${spec.name}`,
          'data-tab': spec.name,
          'aria-controls': spec.panelId,
          'aria-selected': 'false',
          tabindex: '-1'
        }
      });
      tab.title = spec.label;
      this._tabs.set(spec.name, tab);
      this._list.appendChild(tab);
    }
    this._list.addEventListener('keydown', event => this.onKey(event));
    this._more = button('', () => this.toggleMenu(), {
      className: 'jm-tab-more',
      attrs: {
        'aria-haspopup': 'menu',
        'aria-expanded': 'false',
        'aria-controls': 'jm-tab-menu'
      }
    });
    // Its label and count are nodes of their own, kept, their text set when it changes.
    this._moreLabel = el('span', { className: 'jm-more-label' });
    this._moreBadge = el('span', {
      className: 'jm-badge jm-more-badge',
      attrs: { 'aria-hidden': 'true' }
    });
    this._moreBadge.hidden = true;
    this._more.append(this._moreLabel, this._moreBadge);
    this._more.hidden = true;
    this._more.addEventListener('keydown', event => {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        this.openMenu(event.key === 'ArrowUp' ? 'last' : 'first');
      }
    });
    this._menu = el('div', {
      className: 'jm-tab-menu',
      attrs: {
        id: 'jm-tab-menu',
        role: 'menu',
        'aria-label': trans.__('More tabs')
      }
    });
    this._menu.hidden = true;
    this._menu.addEventListener('keydown', event => this.onMenuKey(event));
    this._menu.addEventListener('focusout', event => {
      const to = event.relatedTarget as Node | null;
      if (!to || (!this._menu.contains(to) && to !== this._more)) {
        this.closeMenu(false);
      }
    });
    this.node = el('div', { className: 'jm-tabbar' }, [
      this._list,
      this._more,
      this._menu
    ]);
    // The row is laid out again whenever its width changes (the sidebar is
    // dragged, the language or a badge changes a label's width).
    this._observer = new ResizeObserver(() => this.layout());
    this._observer.observe(this.node);
  }

  tab(name: T): HTMLButtonElement {
    return this._tabs.get(name)!;
  }

  get selected(): T | null {
    return this._selected;
  }

  /** Mark `name` selected (the caller shows its view). */
  setSelected(name: T): void {
    this._selected = name;
    for (const [tab, node] of this._tabs) {
      const on = tab === name;
      node.setAttribute('aria-selected', on ? 'true' : 'false');
      node.tabIndex = on ? 0 : -1;
    }
    this.layout();
  }

  /** Which tabs fit in the row: in order, the selected one kept, the rest in the menu. */
  layout(): void {
    const tabs = this.specs.map(s => this._tabs.get(s.name)!);
    for (const tab of tabs) {
      tab.hidden = false;
    }
    this._more.hidden = true;
    const width = this.node.clientWidth;
    if (width === 0) {
      return; // not shown yet: laid out when it is
    }
    if (this._list.scrollWidth <= this._list.clientWidth + 1) {
      this.renderMenu([]);
      return;
    }
    this._more.hidden = false;
    const room = width - this._more.offsetWidth - 4;
    const selected = this._selected ? this._tabs.get(this._selected) : null;
    let used = selected ? selected.offsetWidth : 0;
    const hidden: T[] = [];
    for (const spec of this.specs) {
      const tab = this._tabs.get(spec.name)!;
      if (tab === selected) {
        continue;
      }
      if (used + tab.offsetWidth <= room && hidden.length === 0) {
        used += tab.offsetWidth;
      } else {
        hidden.push(spec.name); // once one is out, the later ones go too (order kept)
      }
    }
    for (const name of hidden) {
      this._tabs.get(name)!.hidden = true;
    }
    this.renderMenu(hidden);
  }

  /**
   * The menu of the tabs out of the row. layout() runs on every live refresh
   * (a badge's count may change a tab's width), so nothing here is rebuilt when
   * it did not change: each tab has one menu item for the life of the strip, the
   * menu's children move only when the hidden set does, and a badge's text is
   * set only when its count changed. An item made again on each refresh was a
   * new node under the person's pointer (a click pressed on the old one and
   * released on the new one is lost) and took the focus out of the menu.
   */
  private renderMenu(hidden: T[]): void {
    this._hidden = hidden;
    placeChildren(
      this._menu,
      hidden.map(name => this.menuItem(name))
    );
    let counted = 0;
    for (const name of hidden) {
      // The tab's badge (pending count, memories to review) goes along.
      const counts = Array.from(
        this._tabs.get(name)!.querySelectorAll<HTMLElement>('.jm-badge')
      )
        .filter(badge => !badge.hidden)
        .map(badge => badge.textContent ?? '');
      const item = this.menuItem(name);
      const badges = Array.from(
        item.querySelectorAll<HTMLElement>('.jm-badge')
      );
      if (
        badges.length !== counts.length ||
        badges.some((badge, at) => badge.textContent !== counts[at])
      ) {
        badges.forEach(badge => badge.remove());
        for (const text of counts) {
          item.appendChild(el('span', { className: 'jm-badge', text }));
        }
      }
      counted += counts.reduce((sum, text) => sum + (Number(text) || 0), 0);
    }
    setText(this._moreLabel, `${this.trans.__('More')} ▾`);
    // What the hidden tabs' badges count (pending, to review) shows on More too.
    setText(this._moreBadge, String(counted));
    this._moreBadge.hidden = counted === 0;
    this._more.setAttribute(
      'aria-label',
      this.trans.__(
        'More tabs: %1',
        hidden.map(n => this.specs.find(s => s.name === n)!.label).join(', ')
      )
    );
    if (hidden.length === 0) {
      this.closeMenu(false);
    }
  }

  /** The menu item of a tab, made once. */
  private menuItem(name: T): HTMLButtonElement {
    let item = this._items.get(name);
    if (!item) {
      const spec = this.specs.find(s => s.name === name)!;
      item = button(spec.label, () => this.pick(name), {
        className: `jm-tab-menu-item jm-tab-menu-${name}`,
        attrs: { role: 'menuitem', 'data-tab': name, tabindex: '-1' }
      });
      this._items.set(name, item);
    }
    return item;
  }

  private select(name: T): void {
    this.onSelect(name);
    this.tab(name).focus();
  }

  private pick(name: T): void {
    this.closeMenu(false);
    this.select(name);
  }

  private toggleMenu(): void {
    if (this._menu.hidden) {
      this.openMenu('first');
    } else {
      this.closeMenu(true);
    }
  }

  private openMenu(at: 'first' | 'last'): void {
    if (this._hidden.length === 0) {
      return;
    }
    this._menu.hidden = false;
    this._more.setAttribute('aria-expanded', 'true');
    const items = this.menuItems();
    (at === 'first' ? items[0] : items[items.length - 1])?.focus();
  }

  private closeMenu(refocus: boolean): void {
    if (this._menu.hidden) {
      return;
    }
    this._menu.hidden = true;
    this._more.setAttribute('aria-expanded', 'false');
    if (refocus) {
      this._more.focus();
    }
  }

  private menuItems(): HTMLButtonElement[] {
    return Array.from(
      this._menu.querySelectorAll('.jm-tab-menu-item')
    ) as HTMLButtonElement[];
  }

  private onMenuKey(event: KeyboardEvent): void {
    const items = this.menuItems();
    const index = items.indexOf(document.activeElement as HTMLButtonElement);
    let next = -1;
    if (event.key === 'ArrowDown') {
      next = (index + 1) % items.length;
    } else if (event.key === 'ArrowUp') {
      next = (index - 1 + items.length) % items.length;
    } else if (event.key === 'Home') {
      next = 0;
    } else if (event.key === 'End') {
      next = items.length - 1;
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      this.closeMenu(true);
      return;
    } else if (event.key === 'Tab') {
      this.closeMenu(false);
      return;
    }
    if (next >= 0) {
      event.preventDefault();
      items[next].focus();
    }
  }

  private onKey(event: KeyboardEvent): void {
    const names = this.specs.map(s => s.name);
    const current = (event.target as HTMLElement).closest('.jm-tab');
    const at = names.findIndex(n => this._tabs.get(n) === current);
    if (at < 0) {
      return;
    }
    let next = -1;
    if (event.key === 'ArrowRight') {
      next = (at + 1) % names.length;
    } else if (event.key === 'ArrowLeft') {
      next = (at - 1 + names.length) % names.length;
    } else if (event.key === 'Home') {
      next = 0;
    } else if (event.key === 'End') {
      next = names.length - 1;
    }
    if (next >= 0) {
      event.preventDefault();
      this.select(names[next]); // automatic activation: the view follows the focus
    }
  }

  dispose(): void {
    this._observer.disconnect();
  }

  private _selected: T | null = null;
  private _hidden: T[] = [];
  private readonly _tabs = new Map<T, HTMLButtonElement>();
  private readonly _list: HTMLDivElement;
  private readonly _more: HTMLButtonElement;
  private readonly _moreLabel: HTMLSpanElement;
  private readonly _moreBadge: HTMLSpanElement;
  private readonly _items = new Map<T, HTMLButtonElement>();
  private readonly _menu: HTMLDivElement;
  private readonly _observer: ResizeObserver;
}

/** Set a node's text only when it differs (a write replaces its text node). */
function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) {
    node.textContent = text;
  }
}
