// A squarified treemap (Bruls, Huizing and van Wijk), written by hand for
// the console: no npm and no CDN, so no charting library. Items are laid
// out largest first, in rows along the shorter side of the space left,
// each row grown while that does not make its worst aspect ratio worse.

export interface Rect { x: number; y: number; w: number; h: number }
export interface Tile<T> extends Rect { item: T }

interface Sized<T> { item: T; area: number }

/** The worst aspect ratio of a row of `areas` laid along a side of `side`. */
function worst(areas: number[], side: number): number {
  let sum = 0;
  let max = 0;
  let min = Infinity;
  for (const a of areas) {
    sum += a;
    if (a > max) max = a;
    if (a < min) min = a;
  }
  if (sum === 0 || side === 0 || min === 0) return Infinity;
  const s2 = side * side;
  return Math.max((s2 * max) / (sum * sum), (sum * sum) / (s2 * min));
}

/** Lays `items` out in `rect`, each with an area proportional to `size(item)`. */
export function squarify<T>(items: T[], size: (item: T) => number, rect: Rect): Tile<T>[] {
  const total = items.reduce((acc, it) => acc + Math.max(size(it), 0), 0);
  if (items.length === 0 || total === 0 || rect.w <= 0 || rect.h <= 0) return [];
  const scale = (rect.w * rect.h) / total;
  const sized: Sized<T>[] = items
    .map((item) => ({ item, area: Math.max(size(item), 0) * scale }))
    .filter((s) => s.area > 0)
    .sort((a, b) => b.area - a.area);
  const out: Tile<T>[] = [];
  let { x, y, w, h } = rect;
  let i = 0;
  while (i < sized.length) {
    const side = Math.min(w, h);
    const row: Sized<T>[] = [sized[i++]];
    while (i < sized.length) {
      const areas = row.map((r) => r.area);
      if (worst([...areas, sized[i].area], side) <= worst(areas, side)) {
        row.push(sized[i++]);
      } else {
        break;
      }
    }
    const sum = row.reduce((acc, r) => acc + r.area, 0);
    if (w >= h) {
      // A column on the left, as tall as the space.
      const cw = sum / h;
      let cy = y;
      for (const r of row) {
        const rh = r.area / cw;
        out.push({ item: r.item, x, y: cy, w: cw, h: rh });
        cy += rh;
      }
      x += cw;
      w -= cw;
    } else {
      // A row along the top, as wide as the space.
      const rh = sum / w;
      let cx = x;
      for (const r of row) {
        const rw = r.area / rh;
        out.push({ item: r.item, x: cx, y, w: rw, h: rh });
        cx += rw;
      }
      y += rh;
      h -= rh;
    }
  }
  return out;
}
