/**
 * The composer: a text box named "Message #channel" (or "@user"), with replies, attachments
 * (upload progress), @member and #channel suggestions, emoji (the "Emoji" picker and `:name`
 * suggestions), typing notifications and, in a server
 * channel, slash commands: "/" opens the "Commands" list (ranked by rule 7), choosing one shows
 * its options as fields (CommandForm), and sending writes the positional wire form with the
 * routing flag when several bots share the name, then waits for the bot's answer.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { errorMessage } from "../lib/api-errors.ts";
import { newNonce, type UploadProgress } from "../../sdk/src/client.ts";
import type { Emoji, Message, ServerCommand } from "../lib/wire-types.ts";
import { buildCommandWire, missingRequiredOption, sharesName } from "../lib/command-wire.ts";
import { encodeMentions } from "../lib/content.ts";
import { LIMITS, rankCommands } from "../lib/shared-rules.ts";
import { TypingSender } from "../lib/typing.ts";
import { gateway, rest } from "../state/app-state.ts";
import { sendMessage, uploadMessage } from "../state/place-requests.ts";
import { Avatar } from "./avatar.tsx";
import { CommandForm } from "./command-form.tsx";
import { EmojiPicker } from "./emoji-picker.tsx";
import { mayHere, usePlace } from "./place-context.ts";
import { listKeys, SuggestionList, type Suggestion } from "./suggestion-list.tsx";
import { useEmojiSuggestions } from "./use-emoji-suggestions.tsx";
import { useMemberSearch } from "./use-member-search.ts";
import { ErrorAlert } from "./error-alert.tsx";
import { CharacterCount } from "./character-count.tsx";
import { StagedFiles } from "./staged-files.tsx";
import { characterCountText, COUNT_SHOWN_FROM, tooLongMessage } from "../lib/message-length.ts";
import { Icon } from "./icons.tsx";
import { layoutSize } from "../state/layout.ts";

const COMMAND_QUERY = /^\/([\w-]*)$/;
const MENTION_QUERY = /(^|\s)([@#])([\w.-]*)$/;
/** How many `@name` suggestions show at once. */
const MENTION_SUGGESTIONS = 8;
const NO_EMOJI: Emoji[] = [];

interface ComposerProps {
  replyTo: Message | null;
  onCancelReply: () => void;
  /** A message was sent: the log scrolls to it. */
  onSent: () => void;
}

export function Composer({ replyTo, onCancelReply, onSent }: ComposerProps) {
  const place = usePlace();
  const { timeline, server } = place;
  const [text, setText] = useState("");
  const [caret, setCaret] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [command, setCommand] = useState<ServerCommand | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [displays, setDisplays] = useState<Record<string, string>>({});
  const [focusOption, setFocusOption] = useState<string | null>(null);
  const [picking, setPicking] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const emojiButton = useRef<HTMLButtonElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  /** The send in progress or last failed, and its nonce (see nonceFor). */
  const sending = useRef<{ what: string; nonce: string } | null>(null);

  const commands = server?.commands.value ?? [];
  const channels = server?.channels.value ?? [];
  const roles = server?.roles.value ?? [];
  const dmPeople = [...(place.dm?.recipients ?? []), { id: place.me.id, username: place.me.username, avatar: place.me.avatar }];

  const typing = useMemo(
    () =>
      new TypingSender((event) => {
        // Typing is of the moment: dropped, never queued, while the connection is down.
        if (place.place.kind === "channel") gateway.send(`typing:${event}`, place.place.channelId, { dropWhileDisconnected: true });
        else gateway.send(`dm:typing:${event}`, { conversationId: timeline.key }, { dropWhileDisconnected: true });
      }),
    [timeline.key],
  );

  // The box empties and takes focus when the place changes; not on a phone, where the focus would
  // open the keyboard over the conversation just chosen (the focus goes back to "Open navigation").
  useEffect(() => {
    setText("");
    setFiles([]);
    setCommand(null);
    setError(null);
    if (layoutSize.value !== "phone") box.current?.focus();
  }, [timeline.key]);
  useEffect(() => {
    if (replyTo) box.current?.focus();
  }, [replyTo?.id]);

  // Slash commands: the list is asked again each time it opens, so new registrations show.
  const commandQuery = server && !command ? COMMAND_QUERY.exec(text) : null;
  const menuOpen = commandQuery !== null && dismissed !== text;
  useEffect(() => {
    if (commandQuery && text === "/") void server?.reloadCommands();
  }, [text === "/"]);
  const ranked = menuOpen ? rankCommands(commandQuery![1]!, commands) : [];

  // @member and #channel suggestions at the caret. A server's members: those the app knows, and
  // in a large server the server's search for what is typed (useMemberSearch, debounced).
  const mention = !command && !commandQuery && dismissed !== text ? MENTION_QUERY.exec(text.slice(0, caret)) : null;
  const memberQuery = server && mention?.[2] === "@" ? mention[3]! : null;
  const found = useMemberSearch(server?.members ?? null, memberQuery, { limit: MENTION_SUGGESTIONS });
  const people = server
    ? found.results.map((m) => ({ id: m.user_id, username: m.username, avatar: m.avatar }))
    : dmPeople.filter((p) => p.username.toLowerCase().startsWith((mention?.[3] ?? "").toLowerCase())).slice(0, MENTION_SUGGESTIONS);
  const mentionItems: (Suggestion & { insert: string })[] = mention
    ? mention[2] === "@"
      ? people.map((p) => ({ id: p.id, label: `@${p.username}`, icon: <Avatar name={p.username} src={p.avatar} size={20} />, insert: `@${p.username} ` }))
      : channels
          .filter((c) => c.type === "text" && c.name.startsWith(mention[3]!.toLowerCase()))
          .slice(0, 8)
          .map((c) => ({ id: c.id, label: `#${c.name}`, insert: `#${c.name} ` }))
    : [];

  // `:name` suggestions at the caret, when no other list is open.
  const emoji = useEmojiSuggestions(!command && !commandQuery && !mention && dismissed !== text ? text.slice(0, caret) : null, server?.emojis.value ?? NO_EMOJI);

  const listItems: Suggestion[] = menuOpen
    ? ranked.map((c) => ({
        id: c.id,
        label: `/${c.name}`,
        detail: `${c.description}${c.description ? " · " : ""}${c.bot_name}`,
        icon: <Avatar name={c.bot_name} src={c.bot_avatar} size={24} />,
      }))
    : mention
      ? mentionItems
      : emoji.items;
  const listLabel = menuOpen ? "Commands" : mention?.[2] === "#" ? "Channels" : mention ? "Members" : "Emoji";
  const chooseItem = menuOpen ? chooseCommand : mention ? chooseMention : chooseEmoji;
  const activeIndex = Math.min(active, Math.max(0, listItems.length - 1));

  function chooseCommand(index: number) {
    const chosen = ranked[index];
    if (!chosen) return;
    setCommand(chosen);
    setValues({});
    setDisplays({});
    setFocusOption(null);
    setError(null);
    setText("");
    typing.stop();
  }

  /** `insert` replaces the text from `start` to the caret, and the caret goes after it. */
  function replaceToCaret(start: number, insert: string) {
    const next = text.slice(0, start) + insert + text.slice(caret);
    const at = start + insert.length;
    setText(next);
    setCaret(at);
    // The box's text and caret change now, not in a later frame: a key typed before that frame
    // would land where the caret was and then be left behind it.
    const el = box.current;
    if (!el) return;
    el.value = next;
    el.focus();
    el.setSelectionRange(at, at);
  }

  function chooseMention(index: number) {
    const item = mentionItems[index];
    if (!item || !mention) return;
    replaceToCaret(caret - mention[2]!.length - mention[3]!.length, item.insert);
  }

  function chooseEmoji(index: number) {
    const item = emoji.items[index];
    if (!item || emoji.start === null) return;
    emoji.chosen(index);
    replaceToCaret(emoji.start, item.insert);
  }

  function leaveCommand() {
    const name = command?.name;
    setCommand(null);
    setError(null);
    setText(name ? `/${name}` : "");
    setDismissed(name ? `/${name}` : null);
    requestAnimationFrame(() => box.current?.focus());
  }

  async function sendCommand() {
    if (!command || place.place.kind !== "channel") return;
    const missing = missingRequiredOption(command.options, values);
    if (missing) {
      setError(`Missing required option: ${missing.name}`);
      setFocusOption(missing.name);
      return;
    }
    const wire = buildCommandWire(command.name, command.options, values, sharesName(commands, command.name) ? command.bot_id : null);
    setBusy(true);
    setError(null);
    // Waiting starts before the send: the bot may answer before the send's own answer comes back.
    const wait = timeline.expectAnswer(command.bot_id, `${command.bot_name} did not answer /${command.name}.`);
    try {
      const sent = await sendMessage(rest, place.place, { content: wire, nonce: nonceFor(`command:${wire}`) });
      sending.current = null;
      timeline.receive(sent);
      wait.sent(sent.id);
      setCommand(null);
      onSent();
      requestAnimationFrame(() => box.current?.focus());
    } catch (failure) {
      wait.cancel();
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  }

  /** The text as it is sent: mentions written as the server reads them (longer than typed). */
  function sentContent(typed: string): string {
    const users = server ? (server.members.members.peek() ?? []).map((m) => ({ id: m.user_id, username: m.username })) : dmPeople;
    return encodeMentions(typed.trim(), { users, channels: channels.filter((c) => c.type === "text") });
  }
  // Counted as sent once the count may show; a mention can make the text a few times longer.
  // Once per change of the text (not per render): encoding reads the server's known members.
  const sentLength = useMemo(() => (text.length * 20 > LIMITS.message.contentLength - COUNT_SHOWN_FROM ? sentContent(text).length : text.length), [text]);

  /**
   * The nonce of a send of `what` (docs/messages.md, "Idempotent sends"): a failed send's nonce
   * is kept, so pressing send again on the same message retries it safely (the server answers the
   * message if the failed try stored it); anything else sent gets a new one.
   */
  function nonceFor(what: string): string {
    if (sending.current?.what !== what) sending.current = { what, nonce: newNonce() };
    return sending.current.nonce;
  }

  async function send() {
    const content = sentContent(text);
    if (!content && files.length === 0) return;
    const tooLong = tooLongMessage(content.length);
    if (tooLong) return setError(tooLong);
    setBusy(true);
    setError(null);
    // A command typed out by hand waits for its bot like one chosen from the list, from before the send.
    const typed = /^\/([\w-]{1,32})(?=\s|$)/.exec(content);
    const bots = typed ? commands.filter((c) => c.name === typed[1]!.toLowerCase()) : [];
    const wait = bots.length === 1 ? timeline.expectAnswer(bots[0]!.bot_id, `${bots[0]!.bot_name} did not answer /${bots[0]!.name}.`) : null;
    try {
      const nonce = nonceFor(JSON.stringify([content, replyTo?.id ?? null, files.map((f) => [f.name, f.size, f.lastModified])]));
      const sent =
        files.length > 0
          ? await uploadMessage(rest, place.place, files, content, replyTo?.id ?? null, nonce, setProgress)
          : await sendMessage(rest, place.place, { content, reply_to: replyTo?.id ?? null, nonce });
      sending.current = null;
      typing.stop();
      timeline.receive(sent);
      wait?.sent(sent.id);
      setText("");
      setFiles([]);
      onCancelReply();
      onSent();
    } catch (failure) {
      wait?.cancel();
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
      setProgress(null);
    }
  }

  function onKeyDown(event: KeyboardEvent) {
    const handled = listKeys(event, {
      count: listItems.length,
      active: activeIndex,
      setActive,
      choose: chooseItem,
      close: () => setDismissed(text),
    });
    if (handled) return;
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      if (!busy) void send();
    } else if (event.key === "Escape" && replyTo) {
      event.preventDefault();
      onCancelReply();
    }
  }

  function addFiles(list: FileList | null) {
    if (list && list.length) setFiles((current) => [...current, ...Array.from(list)].slice(0, 10));
  }

  const lookups = { members: server?.members ?? null, channels, roles };
  const listId = `composer-list-${timeline.key}`;
  const countId = `composer-count-${timeline.key}`;
  const percent = progress && progress.total ? Math.round((progress.loaded / progress.total) * 100) : 0;

  return (
    <div
      class="composer"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        addFiles(e.dataTransfer?.files ?? null);
      }}
    >
      {listItems.length > 0 && (
        <SuggestionList
          id={listId}
          label={listLabel}
          items={listItems}
          active={activeIndex}
          onChoose={chooseItem}
          onHover={setActive}
        />
      )}
      {menuOpen && listItems.length === 0 && commandQuery![1] && (
        <p class="suggestions-empty" role="status">
          No command matches /{commandQuery![1]}
        </p>
      )}
      {replyTo && (
        <div class="composer-reply">
          <span>
            Replying to <strong>{replyTo.username}</strong>
          </span>
          <button type="button" class="icon" aria-label="Cancel reply" onClick={onCancelReply}>
            <Icon name="close" />
          </button>
        </div>
      )}
      {files.length > 0 && <StagedFiles files={files} onRemove={(i) => setFiles(files.filter((_, j) => j !== i))} />}
      {progress && (
        <div class="upload-progress">
          <progress aria-label="Upload progress" max={progress.total || 1} value={progress.loaded} />
          <span role="status">Uploading… {percent}%</span>
        </div>
      )}
      {command ? (
        <CommandForm
          command={command}
          showBot={sharesName(commands, command.name)}
          values={values}
          displays={displays}
          onValue={(name, wire, display) => {
            setValues((v) => ({ ...v, [name]: wire }));
            setDisplays((d) => ({ ...d, [name]: display }));
            if (error) setError(null);
          }}
          onSubmit={() => void sendCommand()}
          onCancel={leaveCommand}
          lookups={lookups}
          error={error}
          busy={busy}
          focusOption={focusOption}
        />
      ) : (
        <div class="composer-row">
          {mayHere(place, "ATTACH_FILES") && (
            <button type="button" class="icon attach" aria-label="Attach files" title="Attach files" onClick={() => fileInput.current?.click()}>
              <Icon name="plus" size={20} />
            </button>
          )}
          <input ref={fileInput} type="file" multiple hidden onChange={(e) => {
            addFiles(e.currentTarget.files);
            e.currentTarget.value = "";
          }} />
          <textarea
            ref={box}
            class="composer-box"
            aria-label={`Message ${place.label}`}
            placeholder={`Message ${place.label}`}
            aria-autocomplete="list"
            aria-describedby={characterCountText(sentLength) ? countId : undefined}
            aria-controls={listItems.length ? listId : undefined}
            aria-activedescendant={listItems.length ? `${listId}-${activeIndex}` : undefined}
            rows={Math.min(10, Math.max(1, text.split("\n").length))}
            value={text}
            disabled={busy && files.length > 0}
            onInput={(e) => {
              const value = e.currentTarget.value;
              setText(value);
              setCaret(e.currentTarget.selectionStart ?? value.length);
              setActive(0);
              if (error) setError(null);
              if (!COMMAND_QUERY.test(value)) typing.input(value);
            }}
            onKeyDown={onKeyDown}
            onKeyUp={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
            onClick={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
            onPaste={(e) => {
              if (e.clipboardData?.files.length) {
                e.preventDefault();
                addFiles(e.clipboardData.files);
              }
            }}
          />
          <button
            ref={emojiButton}
            type="button"
            class="icon composer-emoji"
            aria-label="Emoji"
            title="Emoji"
            aria-expanded={picking}
            onClick={() => setPicking(!picking)}
          >
            <Icon name="smile" size={20} />
          </button>
          {picking && emojiButton.current && (
            <EmojiPicker
              label="Emoji"
              anchor={emojiButton.current}
              server={server}
              onClose={() => setPicking(false)}
              onPick={(picked) => {
                setPicking(false);
                replaceToCaret(caret, picked);
              }}
            />
          )}
          <CharacterCount id={countId} length={sentLength} />
          <button type="button" class="primary send" disabled={busy || (!text.trim() && files.length === 0)} onClick={() => void send()}>
            {/* On a phone the arrow alone (web/layout.css), so the text box keeps the width. */}
            <Icon name="send" size={18} />
            <span class="send-label">Send</span>
          </button>
        </div>
      )}
      {!command && <ErrorAlert message={error} />}
    </div>
  );
}
