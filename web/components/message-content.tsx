import { parseRich, type RichNode } from "../lib/content.ts";
import { usePlace } from "./place-context.ts";

/** `/emojis/:id/file` redirects to the image (public, cached by the browser). */
export const emojiUrl = (id: string) => `/api/v1/emojis/${id}/file`;

/** An emoji as stored in reactions and content: Unicode as it is, `<:name:id>` as its image. */
export function EmojiView({ emoji }: { emoji: string }) {
  const custom = /^<a?:([\w-]+):([0-9a-fA-F-]{36})>$/.exec(emoji);
  if (!custom) return <span class="emoji">{emoji}</span>;
  return <img class="custom-emoji" src={emojiUrl(custom[2]!)} alt={`:${custom[1]}:`} title={`:${custom[1]}:`} width={20} height={20} />;
}

/** Message text with markdown, mentions shown as names, custom emoji as images and links as links. */
export function MessageContent({ content }: { content: string }) {
  const nodes = parseRich(content);
  const onlyEmoji = nodes.every((n) => n.kind === "emoji" || (n.kind === "text" && !n.text.trim()));
  return <>{nodes.map((node, i) => <RichView key={i} node={node} bigEmoji={onlyEmoji} />)}</>;
}

function RichView({ node, bigEmoji }: { node: RichNode; bigEmoji: boolean }) {
  const place = usePlace();
  switch (node.kind) {
    case "text":
      return <>{node.text}</>;
    case "bold":
    case "italic":
    case "underline":
    case "strike": {
      const Tag = ({ bold: "strong", italic: "em", underline: "u", strike: "s" } as const)[node.kind];
      return (
        <Tag>
          {node.children.map((child, i) => (
            <RichView key={i} node={child} bigEmoji={false} />
          ))}
        </Tag>
      );
    }
    case "code":
      return <code>{node.text}</code>;
    case "codeblock":
      return (
        <pre class="code-block" data-language={node.language ?? undefined}>
          <code>{node.text}</code>
        </pre>
      );
    case "user": {
      const name = place.userName(node.id);
      return (
        <span class={`mention${node.id === place.me.id ? " me" : ""}`} title={name ? undefined : node.id}>
          @{name ?? "unknown-user"}
        </span>
      );
    }
    case "role": {
      const role = place.roleOf(node.id);
      return (
        <span class="mention role" style={role?.color ? { color: role.color } : undefined}>
          @{role?.name ?? "deleted-role"}
        </span>
      );
    }
    case "channel": {
      const channel = place.channelOf(node.id);
      return channel ? (
        <a class="mention" href={`/channels/${channel.server_id}/${channel.id}`}>
          #{channel.name}
        </a>
      ) : (
        <span class="mention">#unknown-channel</span>
      );
    }
    case "emoji":
      return <img class={bigEmoji ? "custom-emoji big" : "custom-emoji"} src={emojiUrl(node.id)} alt={`:${node.name}:`} title={`:${node.name}:`} />;
    case "everyone":
      return <span class="mention">{node.text}</span>;
    case "link":
      return (
        <a href={node.url} target="_blank" rel="noopener noreferrer">
          {node.url}
        </a>
      );
  }
}
