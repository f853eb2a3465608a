// The items of the app's own menus (a row's context menu, a column header's menu).

/** One command of a menu. */
export interface MenuItem {
  /** What the item says. */
  label: string;
  /** Its `data-testid`. */
  testId: string;
  /** Shown greyed out, not run. */
  disabled?: boolean;
  /** What it does (the menu closes first). */
  run: () => void;
}

/** Where a menu opens, in viewport pixels. */
export interface MenuPlace {
  x: number;
  y: number;
}

/** A menu's top-left corner that keeps a `width` × `height` menu inside the viewport. */
export function placeMenu(at: MenuPlace, width: number, height: number, viewport: MenuPlace): MenuPlace {
  const x = at.x + width > viewport.x ? Math.max(0, viewport.x - width) : at.x;
  const y = at.y + height > viewport.y ? Math.max(0, at.y - height) : at.y;
  return { x, y };
}
