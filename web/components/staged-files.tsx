/**
 * The files chosen (or pasted) for the next message, before it is sent: a thumbnail for each
 * image, the file icon for anything else, the name and size, and "Remove <name>".
 */
import { formatFileSize } from "../lib/format.ts";
import { Icon } from "./icons.tsx";
import { useObjectUrl } from "./use-chosen-file.ts";

export function StagedFiles({ files, onRemove }: { files: File[]; onRemove: (index: number) => void }) {
  return (
    <ul class="staged-files" aria-label="Files to send">
      {files.map((file, i) => (
        <StagedFile key={`${file.name}-${file.size}-${file.lastModified}-${i}`} file={file} onRemove={() => onRemove(i)} />
      ))}
    </ul>
  );
}

function StagedFile({ file, onRemove }: { file: File; onRemove: () => void }) {
  const image = file.type.startsWith("image/");
  const preview = useObjectUrl(image ? file : null);
  return (
    <li>
      {preview ? <img class="staged-thumb" src={preview} alt="" width={48} height={48} /> : <span class="staged-icon"><Icon name="file" size={24} /></span>}
      <span class="staged-name">{file.name}</span> <span class="muted">{formatFileSize(file.size)}</span>
      <button type="button" class="icon" aria-label={`Remove ${file.name}`} onClick={onRemove}>
        <Icon name="close" size={14} />
      </button>
    </li>
  );
}
