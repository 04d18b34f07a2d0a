/**
 * A message's attachments (docs/web.md "Media"): images as buttons that open the image viewer
 * (loaded on first use: its own chunk), video and audio played inline, other files as a link
 * with their icon, name and size.
 */
import { useState } from "preact/hooks";
import type { ComponentType } from "preact";
import { formatFileSize } from "../lib/format.ts";
import { imageBox } from "../lib/image-box.ts";
import type { Attachment } from "../lib/wire-types.ts";
import { Icon } from "./icons.tsx";
import type { ImageViewerProps } from "./image-viewer.tsx";
import "./attachments.css";

/** The viewer, once imported: every message shares the one module. */
let viewer: Promise<ComponentType<ImageViewerProps>> | null = null;
const loadViewer = () => (viewer ??= import("./image-viewer.tsx").then((m) => m.ImageViewer));

const isImage = (a: Attachment) => a.mime_type.startsWith("image/");
const isVideo = (a: Attachment) => a.mime_type.startsWith("video/");
const isAudio = (a: Attachment) => a.mime_type.startsWith("audio/");

export function Attachments({ attachments }: { attachments: Attachment[] }) {
  const images = attachments.filter(isImage);
  const [open, setOpen] = useState<{ Viewer: ComponentType<ImageViewerProps>; index: number } | null>(null);
  const show = (image: Attachment) => {
    const index = images.indexOf(image);
    void loadViewer().then((Viewer) => setOpen({ Viewer, index }));
  };
  return (
    <div class="attachments">
      {attachments.map((a) =>
        isImage(a) ? <ImageAttachment key={a.id} attachment={a} onOpen={() => show(a)} /> : <MediaOrFile key={a.id} attachment={a} />,
      )}
      {open && <open.Viewer images={images} start={open.index} onClose={() => setOpen(null)} />}
    </div>
  );
}

function ImageAttachment({ attachment, onOpen }: { attachment: Attachment; onOpen: () => void }) {
  // The box is reserved from the stored size, so the row does not grow when the image arrives.
  const box = imageBox(attachment.width, attachment.height);
  return (
    <button type="button" class="attachment-image" aria-label={`Open ${attachment.original_name}`} onClick={onOpen}>
      <img src={attachment.filename} alt={attachment.original_name} loading="lazy" width={box?.width} height={box?.height} class={box ? "sized" : undefined} />
    </button>
  );
}

function MediaOrFile({ attachment }: { attachment: Attachment }) {
  const file = (
    <a class="attachment-file" href={attachment.filename} download={attachment.original_name}>
      <Icon name="file" />
      <span class="name">{attachment.original_name}</span> <span class="muted">{formatFileSize(attachment.size)}</span>
    </a>
  );
  if (isVideo(attachment)) {
    return (
      <figure class="attachment-media">
        <video src={attachment.filename} controls preload="metadata" aria-label={attachment.original_name} />
        <figcaption>{file}</figcaption>
      </figure>
    );
  }
  if (isAudio(attachment)) {
    return (
      <figure class="attachment-media">
        <figcaption>{file}</figcaption>
        <audio src={attachment.filename} controls preload="metadata" aria-label={attachment.original_name} />
      </figure>
    );
  }
  return file;
}
