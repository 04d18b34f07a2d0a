/**
 * Where a pop-up opened from a button goes so that it is always inside the window: below the
 * button when it fits there, else above, else on the side with more room, shortened to fit;
 * its right edge lined up with the button's and moved in from either side of the window. A
 * phone-sized window gets a full-width sheet at the bottom instead. Pure.
 */

export interface Box {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

export type PopoverPlace = { sheet: true } | { sheet: false; top: number; left: number; maxHeight: number };

/** Windows this narrow show the pop-up as a bottom sheet. */
export const SHEET_MAX_WIDTH = 600;
/** Space kept between the pop-up, its button and the window's edges. */
const GAP = 8;

export function placePopover(anchor: Box, size: { width: number; height: number }, view: { width: number; height: number }): PopoverPlace {
  if (view.width <= SHEET_MAX_WIDTH) return { sheet: true };
  const below = view.height - anchor.bottom - 2 * GAP;
  const above = anchor.top - 2 * GAP;
  const downward = size.height <= below || (size.height > above && below >= above);
  const maxHeight = Math.max(0, Math.min(size.height, downward ? below : above));
  const top = downward ? anchor.bottom + GAP : anchor.top - GAP - maxHeight;
  const left = Math.max(GAP, Math.min(anchor.right - size.width, view.width - size.width - GAP));
  return { sheet: false, top, left, maxHeight };
}
