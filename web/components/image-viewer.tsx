/**
 * The image viewer (docs/web.md "Media"), loaded when first opened: a dialog named by the
 * image's file name, the image at the window's size, "Previous" and "Next" (and the left and
 * right arrow keys) through the message's images, "Open original" in a new tab, and "Close"
 * (or Escape, or a click outside), after which the focus returns to the image that opened it.
 */
import { useState } from "preact/hooks";
import type { Attachment } from "../lib/wire-types.ts";
import { Dialog } from "./dialog.tsx";
import { Icon } from "./icons.tsx";
import "./image-viewer.css";

export interface ImageViewerProps {
  images: Attachment[];
  start: number;
  onClose: () => void;
}

export function ImageViewer({ images, start, onClose }: ImageViewerProps) {
  const [index, setIndex] = useState(start);
  const image = images[index];
  if (!image) return null;
  const many = images.length > 1;
  const step = (by: number) => setIndex((i) => (i + by + images.length) % images.length);
  return (
    <Dialog title={image.original_name} onClose={onClose} class="image-viewer">
      <div
        class="image-viewer-body"
        onKeyDown={(e) => {
          if (!many || (e.key !== "ArrowLeft" && e.key !== "ArrowRight")) return;
          e.preventDefault();
          step(e.key === "ArrowLeft" ? -1 : 1);
        }}
      >
        <img src={image.filename} alt={image.original_name} />
        <p class="image-viewer-bar">
          {many && (
            <button type="button" class="icon" aria-label="Previous image" aria-keyshortcuts="ArrowLeft" onClick={() => step(-1)}>
              <Icon name="chevron-left" />
            </button>
          )}
          {many && (
            <span class="muted" aria-live="polite">
              {index + 1} of {images.length}
            </span>
          )}
          {many && (
            <button type="button" class="icon" aria-label="Next image" aria-keyshortcuts="ArrowRight" onClick={() => step(1)}>
              <Icon name="chevron-right" />
            </button>
          )}
          <a class="button" href={image.filename} target="_blank" rel="noopener noreferrer">
            Open original
          </a>
          <button type="button" class="button" autoFocus onClick={onClose}>
            Close
          </button>
        </p>
      </div>
    </Dialog>
  );
}
