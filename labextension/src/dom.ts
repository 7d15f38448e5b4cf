/**
 * Tiny DOM builders. Stored memory text is data (docs/design.md invariant 6): every
 * string goes in through textContent or an attribute, never parsed as HTML; and
 * its control, escape and bidi characters are shown, not obeyed (invariant 12).
 */

// C0 controls but line breaks and tabs, DEL, C1 controls, and the bidi controls
// (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069): the same set as
// jupyter_memory/core/visible.py.
const HIDDEN =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Stored text as a person may see it: ESC as ␛ (so `ESC[8m` reads `␛[8m`), every
 * other C0 control as its control picture, DEL as ␡, the rest as `⟨U+202E⟩`.
 * Text without them comes back as it is.
 */
export function shown(text: string): string {
  return text.replace(HIDDEN, ch => {
    const code = ch.charCodeAt(0);
    if (code < 0x20) {
      return String.fromCharCode(0x2400 + code);
    }
    if (code === 0x7f) {
      return '\u2421';
    }
    return `⟨U+${code.toString(16).toUpperCase().padStart(4, '0')}⟩`;
  });
}

export interface IElementOptions {
  className?: string;
  text?: string;
  title?: string;
  attrs?: Record<string, string>;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: IElementOptions = {},
  children: (Node | null | undefined)[] = []
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (options.className) {
    node.className = options.className;
  }
  if (options.text !== undefined) {
    node.textContent = shown(options.text);
    node.dir = 'auto'; // its own direction, isolated from what surrounds it
  }
  if (options.title) {
    node.title = shown(options.title);
  }
  for (const [key, value] of Object.entries(options.attrs ?? {})) {
    node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child) {
      node.appendChild(child);
    }
  }
  return node;
}

export function button(
  label: string,
  onClick: () => void,
  options: IElementOptions = {}
): HTMLButtonElement {
  const node = el('button', {
    ...options,
    text: label,
    className: `jp-mod-styled jm-button ${options.className ?? ''}`.trim()
  });
  node.type = 'button';
  node.addEventListener('click', onClick);
  return node;
}

/**
 * Make `nodes` the children of `parent`, in order, moving only the nodes out of
 * place. A node that is already where it belongs is left alone: one taken out
 * and put back loses the focus, and the click whose press and release straddled
 * that is lost (no click fires when the two land on different nodes). The live
 * refreshes redraw views under the person's pointer; this keeps what did not
 * change the same node.
 */
export function placeChildren(parent: HTMLElement, nodes: Node[]): void {
  nodes.forEach((node, at) => {
    const there = parent.childNodes[at] ?? null;
    if (there !== node) {
      parent.insertBefore(node, there);
    }
  });
  while (parent.childNodes.length > nodes.length) {
    parent.removeChild(parent.lastChild!);
  }
}

export function clear(node: HTMLElement): void {
  while (node.firstChild) {
    node.removeChild(node.firstChild);
  }
}

/** A status line whose tone (info, error, busy) is a CSS class. */
export function setStatus(
  node: HTMLElement,
  text: string,
  tone: 'info' | 'error' | 'busy' | 'ok' = 'info'
): void {
  node.textContent = shown(text); // a message may quote stored text
  node.dataset.tone = tone;
}
