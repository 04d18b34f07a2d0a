/**
 * The emoji picker, opened by the composer's "Emoji" button and a message's "Add reaction": a
 * pop-up named by its opener's purpose with "Search emoji" (focused on open), "Skin tone", a
 * button per category that scrolls to it (Recently used, the server's custom emoji, then
 * Unicode's groups) and a grid of buttons named by each emoji's label (a custom one `:name:`).
 * Arrows move in the grid, Enter picks, Escape closes and gives focus back to the opener, Tab
 * leaves (and closes it). The Unicode set loads on the first opening (web/lib/emoji-data.ts).
 *
 * It is a manual `popover`: the top layer keeps it clear of the message log's CSS containment
 * (which would make a fixed position relative to the row), while it stays after its opener in
 * the tab order. popover-place.ts keeps it inside the window; a phone gets a bottom sheet.
 */
import type { ComponentChildren } from "preact";
import { memo } from "preact/compat";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { choiceLabel, choiceShortcode, choiceText, resolveRecent, searchEmoji, type EmojiChoice, type SkinTone } from "../lib/emoji-data.ts";
import { gridMove, type GridCell } from "../lib/emoji-grid.ts";
import { EMOJI_GROUPS } from "../lib/emoji-table.ts";
import { placePopover, type PopoverPlace } from "../lib/popover-place.ts";
import { store } from "../state/app-state.ts";
import { recentEmoji, rememberEmoji, setSkinTone, skinTone } from "../state/emoji-preferences.ts";
import type { ServerState } from "../state/server-state.ts";
import type { Emoji } from "../lib/wire-types.ts";
import { emojiUrl } from "./message-content.tsx";
import { useEmojiData } from "./use-emoji-data.ts";
import "./emoji-picker.css";

/** The grid's width in emoji, a cell's height and a section heading's, in pixels (as emoji-picker.css draws them). */
const COLUMNS = 9;
const CELL = 40;
const HEADING = 28;
/** No server, no custom emoji: one array, so the sections are not made again at each render. */
const NO_EMOJI: Emoji[] = [];
/** How many sections the first frame fills (recent, the server's, the first of Unicode's). */
const FIRST_SECTIONS = 3;

/** The skin tone choices, 0 to 5, each shown as a raised hand in that tone. */
const TONES: { name: string; sample: string }[] = [
  { name: "Default skin tone", sample: "\u270B" },
  { name: "Light skin tone", sample: "\u270B\u{1F3FB}" },
  { name: "Medium-light skin tone", sample: "\u270B\u{1F3FC}" },
  { name: "Medium skin tone", sample: "\u270B\u{1F3FD}" },
  { name: "Medium-dark skin tone", sample: "\u270B\u{1F3FE}" },
  { name: "Dark skin tone", sample: "\u270B\u{1F3FF}" },
];

interface Section {
  id: string;
  name: string;
  icon: ComponentChildren;
  choices: EmojiChoice[];
}

export interface EmojiPickerProps {
  /** The pop-up's accessible name: "Emoji" from the composer, "Add reaction" from a message. */
  label: string;
  /** The button that opened it: the pop-up goes beside it, and Escape gives it the focus back. */
  anchor: HTMLElement;
  /** The server whose custom emoji are offered (none in DMs). */
  server: ServerState | null;
  /** What was picked: a Unicode emoji in the chosen tone, or a custom one's `<:name:id>`. */
  onPick: (emoji: string) => void;
  onClose: () => void;
}

export function EmojiPicker({ label, anchor, server, onPick, onClose }: EmojiPickerProps) {
  const { data, failed } = useEmojiData(true);
  const custom = server?.emojis.value ?? NO_EMOJI;
  const customName = (server && store.servers.value?.find((s) => s.id === server.id)?.name) || "Server emoji";
  const tone = skinTone.value;
  const recent = recentEmoji.value;
  const [query, setQuery] = useState("");
  const [active, setActive] = useState<GridCell>({ section: 0, index: 0 });
  const [shown, setShown] = useState<EmojiChoice | null>(null);
  const [tonesOpen, setTonesOpen] = useState(false);
  /** The section at the top of the grid's view: its category button is the current one. */
  const [viewing, setViewing] = useState(0);
  const [place, setPlace] = useState<PopoverPlace | null>(null);
  /** Sections below the first few are filled in after the first frame, so the picker shows at once. */
  const [filled, setFilled] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const grid = useRef<HTMLDivElement>(null);
  const search = useRef<HTMLInputElement>(null);
  const toneButton = useRef<HTMLButtonElement>(null);

  const searching = query.trim() !== "";
  const sections = useMemo<Section[]>(() => {
    if (searching) return [{ id: "results", name: "Search results", icon: null, choices: searchEmoji(data, custom, query) }];
    const all: Section[] = [
      { id: "recent", name: "Recently used", icon: "🕘", choices: resolveRecent(recent, data, custom) },
      { id: "custom", name: customName, icon: custom[0] ? <img src={emojiUrl(custom[0].id)} alt="" width={20} height={20} /> : null, choices: custom.map((emoji) => ({ kind: "custom", emoji })) },
      ...EMOJI_GROUPS.map((group) => ({
        id: `group-${group.group}`,
        name: group.name,
        icon: group.icon,
        choices: (data?.byGroup.get(group.group) ?? []).map((entry): EmojiChoice => ({ kind: "unicode", entry })),
      })),
    ];
    return all.filter((section) => section.choices.length > 0);
  }, [data, custom, customName, query, searching, recent]);

  const sizes = sections.map((s) => s.choices.length);
  const at: GridCell =
    active.section < sections.length && active.index < sizes[active.section]! ? active : { section: 0, index: 0 };
  const cell = (to: GridCell) => grid.current?.querySelector<HTMLButtonElement>(`[data-cell="${to.section}:${to.index}"]`) ?? null;
  const choiceAt = (to: GridCell) => sections[to.section]?.choices[to.index] ?? null;

  function close(refocus: boolean) {
    onClose();
    if (refocus) anchor.focus();
  }

  function pick(choice: EmojiChoice) {
    rememberEmoji(choiceText(choice, 0));
    onPick(choiceText(choice, tone));
  }

  // Shown in the top layer, then placed from its own size and its opener's box.
  useLayoutEffect(() => {
    const element = root.current!;
    element.showPopover();
    const reposition = () => {
      const box = anchor.getBoundingClientRect();
      // An opener that has left the page (its row scrolled out of the log) leaves the pop-up where it was.
      if (box.width === 0 && box.height === 0) return;
      setPlace(placePopover(box, { width: element.offsetWidth, height: element.scrollHeight }, { width: innerWidth, height: innerHeight }));
    };
    reposition();
    search.current?.focus();
    // After the first paint: a frame's callback runs before it, a task queued from there after.
    let fillTimer: ReturnType<typeof setTimeout> | undefined;
    const fillFrame = requestAnimationFrame(() => {
      fillTimer = setTimeout(() => setFilled(true));
    });
    const onScroll = (event: Event) => {
      if (!(event.target instanceof Node && element.contains(event.target))) reposition();
    };
    const outside = (event: Event) => {
      const target = event.target as Node;
      // The opener toggles the pop-up itself.
      if (!element.contains(target) && !anchor.contains(target)) onClose();
    };
    addEventListener("resize", reposition);
    document.addEventListener("scroll", onScroll, true);
    document.addEventListener("pointerdown", outside, true);
    return () => {
      cancelAnimationFrame(fillFrame);
      clearTimeout(fillTimer);
      removeEventListener("resize", reposition);
      document.removeEventListener("scroll", onScroll, true);
      document.removeEventListener("pointerdown", outside, true);
    };
  }, []);

  function onGridKey(event: KeyboardEvent) {
    const to = gridMove(sizes, at, event.key, COLUMNS);
    if (!to) return;
    event.preventDefault();
    setActive(to);
    cell(to)?.focus();
  }

  function onSearchKey(event: KeyboardEvent) {
    if (event.key === "ArrowDown" && sizes.length > 0) {
      event.preventDefault();
      cell(at)?.focus();
    } else if (event.key === "Enter" && searching) {
      event.preventDefault();
      const first = choiceAt({ section: 0, index: 0 });
      if (first) pick(first);
    }
  }

  function jumpTo(index: number) {
    setActive({ section: index, index: 0 });
    setViewing(index);
    grid.current?.querySelector(`#emoji-section-${sections[index]!.id}`)?.scrollIntoView({ block: "start" });
  }

  const cellFrom = (target: EventTarget | null): GridCell | null => {
    const button = target instanceof Element ? target.closest<HTMLElement>("[data-cell]") : null;
    const [section, index] = (button?.dataset.cell ?? "").split(":").map(Number);
    return button && section !== undefined && index !== undefined ? { section, index } : null;
  };

  // The emoji hovered or focused last, else the one the grid's Tab stop is on.
  const preview = shown ?? choiceAt(at);
  const style = place && !place.sheet ? { top: `${place.top}px`, left: `${place.left}px`, maxHeight: `${place.maxHeight}px` } : undefined;
  const found = searching ? (sizes[0] ?? 0) : 0;

  return (
    <div
      ref={root}
      popover="manual"
      class={`emoji-picker${place?.sheet ? " sheet" : ""}`}
      role="dialog"
      aria-label={label}
      style={style}
      onKeyDown={(event) => {
        if (event.key !== "Escape") return;
        event.preventDefault();
        event.stopPropagation();
        if (tonesOpen) {
          setTonesOpen(false);
          toneButton.current?.focus();
        } else close(true);
      }}
      onFocusOut={(event) => {
        const to = event.relatedTarget;
        if (to instanceof Node && !root.current?.contains(to) && !anchor.contains(to)) onClose();
      }}
    >
      <div class="emoji-picker-head">
        <input
          ref={search}
          type="search"
          class="emoji-search"
          aria-label="Search emoji"
          placeholder="Search emoji"
          value={query}
          onInput={(e) => {
            setQuery(e.currentTarget.value);
            setActive({ section: 0, index: 0 });
            setShown(null);
            grid.current?.scrollTo({ top: 0 });
          }}
          onKeyDown={onSearchKey}
        />
        <button
          ref={toneButton}
          type="button"
          class="icon emoji-tone-button"
          aria-label="Skin tone"
          title={`Skin tone: ${TONES[tone]!.name}`}
          aria-expanded={tonesOpen}
          onClick={() => setTonesOpen(!tonesOpen)}
        >
          <span aria-hidden="true">{TONES[tone]!.sample}</span>
        </button>
      </div>
      {tonesOpen && <TonePicker tone={tone} onDone={() => {
        setTonesOpen(false);
        toneButton.current?.focus();
      }} />}
      {!searching && sections.length > 1 && (
        <div class="emoji-categories" role="toolbar" aria-label="Categories" onKeyDown={(event) => {
          const buttons = [...(event.currentTarget as HTMLElement).querySelectorAll<HTMLButtonElement>("button")];
          const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
          const to = event.key === "ArrowRight" ? index + 1 : event.key === "ArrowLeft" ? index - 1 : event.key === "Home" ? 0 : event.key === "End" ? buttons.length - 1 : null;
          if (to === null) return;
          event.preventDefault();
          buttons[(to + buttons.length) % buttons.length]?.focus();
        }}>
          {sections.map((section, index) => (
            <button key={section.id} type="button" class="icon" aria-label={section.name} title={section.name} tabIndex={index === viewing ? 0 : -1} aria-current={index === viewing || undefined} onClick={() => jumpTo(index)}>
              <span aria-hidden="true">{section.icon}</span>
            </button>
          ))}
        </div>
      )}
      <div
        ref={grid}
        class="emoji-scroll"
        onKeyDown={onGridKey}
        onScroll={(event) => {
          const top = event.currentTarget.scrollTop + event.currentTarget.offsetTop;
          const headings = [...event.currentTarget.querySelectorAll<HTMLElement>(".emoji-section")];
          const index = headings.findLastIndex((section) => section.offsetTop <= top + 1);
          setViewing(Math.max(0, index));
        }}
        onClick={(event) => {
          const to = cellFrom(event.target);
          const choice = to && choiceAt(to);
          if (choice) pick(choice);
        }}
        onMouseOver={(event) => {
          const to = cellFrom(event.target);
          if (to) setShown(choiceAt(to));
        }}
        onFocusIn={(event) => {
          const to = cellFrom(event.target);
          if (!to) return;
          setActive(to);
          setShown(choiceAt(to));
        }}
      >
        {sections.map((section, index) => (
          <EmojiSection key={section.id} section={section} index={index} active={index === at.section ? at.index : -1} tone={tone} empty={!filled && index >= FIRST_SECTIONS} />
        ))}
        {searching && data && found === 0 && <p class="emoji-empty">No emoji match “{query.trim()}”</p>}
        {!data && !failed && <p class="emoji-empty">Loading emoji…</p>}
        {failed && <p class="emoji-empty error">The emoji could not be loaded. Close and open the picker to try again.</p>}
      </div>
      <p class="visually-hidden" role="status">
        {searching && data ? (found === 0 ? "No emoji found" : `${found} emoji found`) : ""}
      </p>
      <div class="emoji-picker-foot" aria-hidden="true">
        {preview && (
          <>
            <span class="emoji-foot-glyph"><ChoiceGlyph choice={preview} tone={tone} /></span>
            <span class="emoji-foot-name">{choiceLabel(preview)}</span>
            <span class="emoji-foot-code">{choiceShortcode(preview)}</span>
          </>
        )}
      </div>
    </div>
  );
}

function ChoiceGlyph({ choice, tone }: { choice: EmojiChoice; tone: SkinTone }) {
  return choice.kind === "unicode" ? <>{choiceText(choice, tone)}</> : <img src={emojiUrl(choice.emoji.id)} alt="" width={24} height={24} loading="lazy" />;
}

/**
 * One category: its heading and its emoji (`empty`: only its height, until the first frame has
 * been shown). Memoized, so moving through the grid re-renders only the sections the active
 * emoji leaves and enters; `content-visibility` lets the browser skip
 * laying out the sections out of view (each keeps its height, so the scroll bar and the jumps
 * are right).
 */
const EmojiSection = memo(function EmojiSection({ section, index, active, tone, empty }: { section: Section; index: number; active: number; tone: SkinTone; empty: boolean }) {
  const rows = Math.ceil(section.choices.length / COLUMNS);
  const heading = `emoji-section-${section.id}`;
  return (
    <section class="emoji-section" aria-labelledby={heading} style={{ containIntrinsicSize: `auto ${rows * CELL + HEADING}px` }}>
      <h3 id={heading} class="emoji-section-name">
        {section.name}
      </h3>
      <div class="emoji-cells" style={empty ? { height: `${rows * CELL}px` } : undefined}>
        {!empty && section.choices.map((choice, i) => (
          <button
            key={choice.kind === "unicode" ? choice.entry.unicode : choice.emoji.id}
            type="button"
            class="emoji-cell"
            data-cell={`${index}:${i}`}
            tabIndex={i === active ? 0 : -1}
            aria-label={choiceLabel(choice)}
            title={`${choiceLabel(choice)} ${choiceShortcode(choice)}`}
          >
            <ChoiceGlyph choice={choice} tone={tone} />
          </button>
        ))}
      </div>
    </section>
  );
});

/** "Skin tone": six radios (arrows choose, as radios do); Enter, Space or a click closes the row. */
function TonePicker({ tone, onDone }: { tone: SkinTone; onDone: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLInputElement>("input:checked")?.focus();
  }, []);
  return (
    <div ref={ref} class="emoji-tones" role="radiogroup" aria-label="Skin tone">
      {TONES.map((choice, i) => (
        <label
          key={choice.name}
          class="emoji-tone"
          title={choice.name}
          onClick={(event) => {
            // A click of the pointer; an arrow key's (detail 0) only moves the choice.
            if (event.detail === 0) return;
            setSkinTone(i as SkinTone);
            onDone();
          }}
        >
          <input
            type="radio"
            name="emoji-skin-tone"
            class="visually-hidden"
            aria-label={choice.name}
            checked={i === tone}
            onChange={() => setSkinTone(i as SkinTone)}
            onKeyDown={(event) => {
              if (event.key === "Enter" || event.key === " ") {
                event.preventDefault();
                onDone();
              }
            }}
          />
          <span aria-hidden="true">{choice.sample}</span>
        </label>
      ))}
    </div>
  );
}
