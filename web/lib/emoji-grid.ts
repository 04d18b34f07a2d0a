/**
 * Arrow keys in the emoji picker's grid: sections (Recently used, the server's, each category)
 * of `columns`-wide rows, where the last row of a section may be short. Up and Down keep the
 * column across sections; Left and Right go on to the next or previous section; Home and End go
 * to the first and last emoji. Pure.
 */

export interface GridCell {
  section: number;
  index: number;
}

/** The cell `key` moves to from `at`, given each section's number of cells; null when the key is not a move. */
export function gridMove(sizes: number[], at: GridCell, key: string, columns: number): GridCell | null {
  const size = sizes[at.section] ?? 0;
  const column = at.index % columns;
  const next = (from: number, step: 1 | -1) => {
    for (let s = from + step; s >= 0 && s < sizes.length; s += step) if ((sizes[s] ?? 0) > 0) return s;
    return null;
  };
  switch (key) {
    case "ArrowRight": {
      if (at.index + 1 < size) return { section: at.section, index: at.index + 1 };
      const s = next(at.section, 1);
      return s === null ? at : { section: s, index: 0 };
    }
    case "ArrowLeft": {
      if (at.index > 0) return { section: at.section, index: at.index - 1 };
      const s = next(at.section, -1);
      return s === null ? at : { section: s, index: sizes[s]! - 1 };
    }
    case "ArrowDown": {
      if (at.index + columns < size) return { section: at.section, index: at.index + columns };
      // A short last row below: its last cell.
      if (Math.floor(at.index / columns) < Math.floor((size - 1) / columns)) return { section: at.section, index: size - 1 };
      const s = next(at.section, 1);
      return s === null ? at : { section: s, index: Math.min(column, sizes[s]! - 1) };
    }
    case "ArrowUp": {
      if (at.index - columns >= 0) return { section: at.section, index: at.index - columns };
      const s = next(at.section, -1);
      if (s === null) return at;
      const lastRow = Math.floor((sizes[s]! - 1) / columns) * columns;
      return { section: s, index: Math.min(lastRow + column, sizes[s]! - 1) };
    }
    case "Home": {
      const s = next(-1, 1);
      return s === null ? at : { section: s, index: 0 };
    }
    case "End": {
      const s = next(sizes.length, -1);
      return s === null ? at : { section: s, index: sizes[s]! - 1 };
    }
    default:
      return null;
  }
}
