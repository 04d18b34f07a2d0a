import type { ComponentChildren } from "preact";
import { parseRich, type RichNode } from "../lib/markdown.ts";
import { CodeBlock } from "./code-block.tsx";
import { MaskedLink } from "./masked-link.tsx";
import { MessageTimestamp } from "./message-timestamp.tsx";
import { usePlace } from "./place-context.ts";
import { Spoiler } from "./spoiler.tsx";
import "./markdown.css";

/** `/emojis/:id/file` redirects to the image (public, cached by the browser). */
export const emojiUrl = (id: string) => `/api/v1/emojis/${id}/file`;

/** An emoji as stored in reactions and content: Unicode as it is, `<:name:id>` as its image. */
export function EmojiView({ emoji }: { emoji: string }) {
  const custom = /^<a?:([\w-]+):([0-9a-fA-F-]{36})>$/.exec(emoji);
  if (!custom) return <span class="emoji">{emoji}</span>;
  return <img class="custom-emoji" src={emojiUrl(custom[2]!)} alt={`:${custom[1]}:`} title={`:${custom[1]}:`} width={20} height={20} />;
}

/**
 * Message text with markdown, mentions shown as names, custom emoji as images and links as links.
 * `preview` (a reply's quote, itself a button) keeps it to one run of text with nothing to press:
 * blocks flattened, links and masked links as their text, spoilers covered for good.
 */
export function MessageContent({ content, preview = false }: { content: string; preview?: boolean }) {
  const nodes = parseRich(content);
  const onlyEmoji = !preview && nodes.every((n) => n.kind === "emoji" || (n.kind === "text" && !n.text.trim()));
  return <Nodes nodes={nodes} bigEmoji={onlyEmoji} preview={preview} />;
}

function Nodes({ nodes, bigEmoji = false, preview }: { nodes: RichNode[]; bigEmoji?: boolean; preview: boolean }) {
  return (
    <>
      {nodes.map((node, i) => (
        <RichView key={i} node={node} bigEmoji={bigEmoji} preview={preview} />
      ))}
    </>
  );
}

function RichView({ node, bigEmoji, preview }: { node: RichNode; bigEmoji: boolean; preview: boolean }) {
  const place = usePlace();
  const inside = (children: RichNode[]) => <Nodes nodes={children} preview={preview} />;
  switch (node.kind) {
    case "text":
      return <>{node.text}</>;
    case "bold":
    case "italic":
    case "underline":
    case "strike": {
      const Tag = ({ bold: "strong", italic: "em", underline: "u", strike: "s" } as const)[node.kind];
      return <Tag>{inside(node.children)}</Tag>;
    }
    case "spoiler":
      return preview ? <CoveredSpoiler>{inside(node.children)}</CoveredSpoiler> : <Spoiler>{inside(node.children)}</Spoiler>;
    case "maskedLink":
      return preview ? inside(node.children) : <MaskedLink url={node.url}>{inside(node.children)}</MaskedLink>;
    case "code":
      return <code>{node.text}</code>;
    case "codeblock":
      return preview ? <code>{node.text}</code> : <CodeBlock text={node.text} language={node.language} />;
    case "quote":
      return preview ? inside(node.children) : <blockquote class="md-quote">{inside(node.children)}</blockquote>;
    case "heading": {
      if (preview) return <strong>{inside(node.children)}</strong>;
      // Headings inside a message sit below the page's own (h1, h2 of the channel and panels): h3 to h5, named by their level.
      const Tag = (["h3", "h4", "h5"] as const)[node.level - 1]!;
      return <Tag class={`md-heading md-h${node.level}`}>{inside(node.children)}</Tag>;
    }
    case "subtext":
      return preview ? inside(node.children) : <small class="md-subtext">{inside(node.children)}</small>;
    case "list": {
      if (preview) return <>{node.items.map((item, i) => <span key={i}>{i > 0 ? " " : ""}{inside(item)}</span>)}</>;
      const items = node.items.map((item, i) => <li key={i}>{inside(item)}</li>);
      return node.ordered ? (
        <ol class="md-list" start={node.start === 1 ? undefined : node.start}>
          {items}
        </ol>
      ) : (
        <ul class="md-list">{items}</ul>
      );
    }
    case "timestamp":
      return <MessageTimestamp unix={node.unix} style={node.style} />;
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
      if (!channel) return <span class="mention">#unknown-channel</span>;
      return preview ? (
        <span class="mention">#{channel.name}</span>
      ) : (
        <a class="mention" href={`/channels/${channel.server_id}/${channel.id}`}>
          #{channel.name}
        </a>
      );
    }
    case "emoji":
      return <img class={bigEmoji ? "custom-emoji big" : "custom-emoji"} src={emojiUrl(node.id)} alt={`:${node.name}:`} title={`:${node.name}:`} />;
    case "everyone":
      return <span class="mention">{node.text}</span>;
    case "link":
      return preview ? (
        <>{node.url}</>
      ) : (
        <a href={node.url} target="_blank" rel="noopener noreferrer">
          {node.url}
        </a>
      );
  }
}

/** A spoiler in a preview: covered, and read as "Spoiler", with no way to reveal it there. */
function CoveredSpoiler({ children }: { children: ComponentChildren }) {
  return (
    <span class="spoiler">
      <span class="sr-only">Spoiler</span>
      <span class="spoiler-text" aria-hidden="true">
        {children}
      </span>
    </span>
  );
}
