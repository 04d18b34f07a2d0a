import { choiceShortcode, choiceText, searchEmoji, type EmojiChoice } from "../lib/emoji-data.ts";
import type { Emoji } from "../lib/wire-types.ts";
import { rememberEmoji, skinTone } from "../state/emoji-preferences.ts";
import { emojiUrl } from "./message-content.tsx";
import type { Suggestion } from "./suggestion-list.tsx";
import { useEmojiData } from "./use-emoji-data.ts";

/** `:` and at least two letters of a name, standing on its own at the caret ("12:30" is not one). */
const EMOJI_QUERY = /(^|\s):([\w+-]{2,})$/;
/** How many emoji the composer suggests at once. */
const EMOJI_SUGGESTIONS = 10;

export interface EmojiSuggestions {
  /** Where the `:name` being typed starts, when there is one. */
  start: number | null;
  items: (Suggestion & { insert: string })[];
  /** The suggestion at `index` was chosen: it becomes a recently used emoji. */
  chosen(index: number): void;
}

/**
 * The composer's "Emoji" suggestions for `before` (the text before the caret; null while another
 * list is open): the server's custom emoji that match, then Unicode, each inserted as it is sent
 * (the character in the reader's skin tone, or `<:name:id>`). The first `:` query loads the set.
 */
export function useEmojiSuggestions(before: string | null, custom: Emoji[]): EmojiSuggestions {
  const match = before === null ? null : EMOJI_QUERY.exec(before);
  const { data } = useEmojiData(match !== null);
  if (!match) return { start: null, items: [], chosen: () => {} };
  const query = match[2]!;
  const tone = skinTone.value;
  const choices = searchEmoji(data, custom, query, EMOJI_SUGGESTIONS);
  return {
    start: before!.length - query.length - 1,
    items: choices.map((choice) => ({
      id: choice.kind === "unicode" ? choice.entry.unicode : choice.emoji.id,
      label: choiceShortcode(choice),
      icon: <SuggestionGlyph choice={choice} text={choiceText(choice, tone)} />,
      insert: `${choiceText(choice, tone)} `,
    })),
    chosen: (index) => {
      const choice = choices[index];
      if (choice) rememberEmoji(choiceText(choice, 0));
    },
  };
}

function SuggestionGlyph({ choice, text }: { choice: EmojiChoice; text: string }) {
  if (choice.kind === "custom") return <img class="suggestion-emoji" src={emojiUrl(choice.emoji.id)} alt="" width={22} height={22} />;
  return (
    <span class="suggestion-emoji" aria-hidden="true">
      {text}
    </span>
  );
}
