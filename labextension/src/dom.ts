/**
 * Tiny DOM builders. Stored memory text is data (docs/design.md invariant 6): every
 * string goes in through textContent or an attribute, never parsed as HTML.
 */

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
    node.textContent = options.text;
  }
  if (options.title) {
    node.title = options.title;
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
  node.textContent = text;
  node.dataset.tone = tone;
}
