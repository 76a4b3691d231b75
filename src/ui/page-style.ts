// The DOM pieces of ui/ carry their own CSS (no stylesheet to keep in step with them): each
// adds its rules to the page once, under an id, however many of it are made.

/** Adds `css` to the page's head as a style element with `id`, unless one is there already. */
export function addStyleOnce(id: string, css: string): void {
  if (document.getElementById(id)) return;
  const style = document.createElement('style');
  style.id = id;
  style.textContent = css;
  document.head.append(style);
}
