import type { Embed, Message } from "../lib/wire-types.ts";
import { formatEmbedTimestamp } from "../lib/format.ts";
import { MessageComponents } from "./message-components.tsx";
import { MessageContent } from "./message-content.tsx";

const external = { target: "_blank", rel: "noopener noreferrer" } as const;

/** One embed as the spec describes it: colour bar, author, title (a link when `url` is set), description, fields, images, footer and timestamp, then its components. */
export function EmbedView({ embed, message }: { embed: Embed; message: Message }) {
  const time = embed.timestamp ? formatEmbedTimestamp(embed.timestamp) : null;
  return (
    <div class="embed" style={embed.color ? { borderInlineStartColor: embed.color } : undefined} data-color={embed.color}>
      <div class="embed-grid">
        <div class="embed-main">
          {embed.author && (
            <div class="embed-author">
              {embed.author.icon_url && <img src={embed.author.icon_url} alt="" width={24} height={24} />}
              {embed.author.url ? (
                <a href={embed.author.url} {...external}>
                  {embed.author.name}
                </a>
              ) : (
                <span>{embed.author.name}</span>
              )}
            </div>
          )}
          {embed.title &&
            (embed.url ? (
              <a class="embed-title" href={embed.url} {...external}>
                {embed.title}
              </a>
            ) : (
              <div class="embed-title">{embed.title}</div>
            ))}
          {embed.description && (
            <div class="embed-description">
              <MessageContent content={embed.description} />
            </div>
          )}
          {embed.fields && embed.fields.length > 0 && (
            <dl class="embed-fields">
              {embed.fields.map((field, i) => (
                <div key={i} class={field.inline ? "embed-field inline" : "embed-field"}>
                  <dt>{field.name}</dt>
                  <dd>
                    <MessageContent content={field.value} />
                  </dd>
                </div>
              ))}
            </dl>
          )}
          {embed.image && <img class="embed-image" src={embed.image} alt={embed.title ? `Image: ${embed.title}` : "Embedded image"} loading="lazy" />}
          {(embed.footer || time) && (
            <div class="embed-footer">
              {embed.footer?.icon_url && <img src={embed.footer.icon_url} alt="" width={20} height={20} />}
              {embed.footer && <span>{embed.footer.text}</span>}
              {embed.footer && time && <span aria-hidden="true"> • </span>}
              {time && <time dateTime={embed.timestamp}>{time}</time>}
            </div>
          )}
        </div>
        {embed.thumbnail && <img class="embed-thumbnail" src={embed.thumbnail} alt="Thumbnail" loading="lazy" />}
      </div>
      {embed.components && embed.components.length > 0 && <MessageComponents components={embed.components} message={message} />}
    </div>
  );
}
