/**
 * A chosen slash command's options as inline fields: text and number fields, true/false and
 * choices (offered by name) as selects, and pickers of members, channels and roles (declared,
 * or inferred from the option's name) that insert mentions. Enter sends, Escape goes back to
 * the text box, Tab moves between fields.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Channel, CommandOption, Member, Role, ServerCommand } from "../lib/wire-types.ts";
import { optionInput } from "../lib/command-wire.ts";
import { Avatar } from "./avatar.tsx";
import { listKeys, SuggestionList, type Suggestion } from "./suggestion-list.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { useMemberSearch } from "./use-member-search.ts";
import type { MemberDirectory } from "../state/member-directory.ts";

/** How many suggestions a picker shows at once. */
const SUGGESTIONS = 25;

export interface Lookups {
  /** The server's members (null in a DM): those known, and in a large server its search for what is typed. */
  members: MemberDirectory | null;
  channels: Channel[];
  roles: Role[];
}

interface CommandFormProps {
  command: ServerCommand;
  /** Several bots have a command of this name: say whose this is. */
  showBot: boolean;
  values: Record<string, string>;
  displays: Record<string, string>;
  onValue: (name: string, wire: string, display: string) => void;
  onSubmit: () => void;
  onCancel: () => void;
  lookups: Lookups;
  error: string | null;
  busy: boolean;
  /** The option whose field gets focus (the missing one after a refused send). */
  focusOption: string | null;
}

export function CommandForm(props: CommandFormProps) {
  const { command } = props;
  const formRef = useRef<HTMLFormElement>(null);

  // Before the browser paints, in the same task as the render: a key pressed right after the
  // command is chosen (the text box it was typed in is gone) reaches the field, not the page.
  useLayoutEffect(() => {
    const target = props.focusOption
      ? formRef.current?.querySelector<HTMLElement>(`[data-option="${props.focusOption}"]`)
      : formRef.current?.querySelector<HTMLElement>("[data-option]") ?? formRef.current?.querySelector<HTMLElement>("button[type=submit]");
    target?.focus();
  }, [command.id, props.focusOption]);

  return (
    <form
      ref={formRef}
      class="command-form"
      aria-label={`/${command.name} options`}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit();
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          props.onCancel();
        } else if (e.key === "Enter" && (e.target as HTMLElement).tagName === "SELECT") {
          // A select would open its menu: in the composer, Enter sends.
          e.preventDefault();
          props.onSubmit();
        }
      }}
    >
      <div class="command-chip">
        <Avatar name={command.bot_name} src={command.bot_avatar} size={20} />
        <strong>/{command.name}</strong>
        <span class="muted">{props.showBot ? `${command.bot_name} · ${command.description}` : command.description}</span>
        <button type="button" class="link" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      {command.options.length > 0 && (
        <div class="command-fields">
          {command.options.map((option) => (
            <OptionField key={option.name} option={option} {...props} />
          ))}
        </div>
      )}
      <ErrorAlert message={props.error} />
      <div class="command-send">
        <span class="hint">Enter to send · Escape to cancel</span>
        <button type="submit" class="primary" disabled={props.busy}>
          Send /{command.name}
        </button>
      </div>
    </form>
  );
}

function OptionField({ option, values, displays, onValue, lookups, focusOption, error }: CommandFormProps & { option: CommandOption }) {
  const input = optionInput(option);
  const value = values[option.name] ?? "";
  const hintId = `opt-${option.name}-hint`;
  const common = {
    id: `opt-${option.name}`,
    "data-option": option.name,
    "aria-required": option.required,
    "aria-invalid": error !== null && focusOption === option.name ? true : undefined,
    "aria-describedby": option.description ? hintId : undefined,
    name: option.name,
  };
  let control;
  if (input === "choice") {
    control = (
      <select {...common} value={value} onChange={(e) => onValue(option.name, e.currentTarget.value, e.currentTarget.selectedOptions[0]?.text ?? "")}>
        <option value="">{option.required ? "Choose…" : "(none)"}</option>
        {option.choices!.map((choice) => (
          <option key={String(choice.value)} value={String(choice.value)}>
            {choice.name}
          </option>
        ))}
      </select>
    );
  } else if (input === "boolean") {
    control = (
      <select {...common} value={value} onChange={(e) => onValue(option.name, e.currentTarget.value, e.currentTarget.value)}>
        <option value="">{option.required ? "Choose…" : "(none)"}</option>
        <option value="true">True</option>
        <option value="false">False</option>
      </select>
    );
  } else if (input === "integer" || input === "number") {
    control = (
      <input
        {...common}
        type="number"
        inputMode={input === "integer" ? "numeric" : "decimal"}
        step={input === "integer" ? 1 : "any"}
        min={option.min_value}
        max={option.max_value}
        value={value}
        onInput={(e) => onValue(option.name, e.currentTarget.value, e.currentTarget.value)}
      />
    );
  } else if (input === "text") {
    control = (
      <input {...common} type="text" maxLength={option.max_length} value={value} onInput={(e) => onValue(option.name, e.currentTarget.value, e.currentTarget.value)} />
    );
  } else {
    control = (
      <EntityField
        common={common}
        kind={input}
        display={displays[option.name] ?? value}
        lookups={lookups}
        onPick={(wire, display) => onValue(option.name, wire, display)}
      />
    );
  }
  return (
    <div class="command-field">
      <label class="command-field-name" for={`opt-${option.name}`}>
        {option.name}
        {option.required && <span aria-hidden="true" class="required"> *</span>}
      </label>
      {control}
      {option.description && (
        <small id={hintId} class="muted">
          {option.description}
        </small>
      )}
    </div>
  );
}

type EntityKind = "user" | "channel" | "role" | "mentionable";

/** Typed text as a name to look for: without its sigil. */
const nameQuery = (query: string) => query.replace(/^[@#]/, "");

function entitySuggestions(kind: EntityKind, query: string, lookups: Lookups, members: readonly Member[]): (Suggestion & { wire: string; display: string })[] {
  const q = nameQuery(query).toLowerCase();
  const matches = (name: string) => !q || name.toLowerCase().includes(q);
  const users = () =>
    members
      .map((m) => ({
        id: `u-${m.user_id}`,
        label: `@${m.username}`,
        detail: m.is_bot ? "BOT" : undefined,
        icon: <Avatar name={m.username} src={m.avatar} size={20} />,
        wire: `<@${m.user_id}>`,
        display: `@${m.username}`,
      }));
  const roles = () =>
    lookups.roles
      .filter((r) => r.is_default !== 1 && matches(r.name))
      .map((r) => ({ id: `r-${r.id}`, label: `@${r.name}`, detail: "Role", wire: `<@&${r.id}>`, display: `@${r.name}` }));
  const channels = () =>
    lookups.channels
      .filter((c) => matches(c.name))
      .map((c) => ({ id: `c-${c.id}`, label: `#${c.name}`, detail: c.type === "voice" ? "Voice" : undefined, wire: `<#${c.id}>`, display: `#${c.name}` }));
  const list = kind === "user" ? users() : kind === "role" ? roles() : kind === "channel" ? channels() : [...users(), ...roles()];
  return list.slice(0, SUGGESTIONS);
}

const PICKER_LABELS: Record<EntityKind, string> = { user: "Members", channel: "Channels", role: "Roles", mentionable: "Members and roles" };

/** A combobox: type to filter the server's members, channels or roles; choosing one puts its mention in the option. */
function EntityField({
  common,
  kind,
  display,
  lookups,
  onPick,
}: {
  common: Record<string, unknown>;
  kind: EntityKind;
  display: string;
  lookups: Lookups;
  onPick: (wire: string, display: string) => void;
}) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  // Members whose name holds what is typed (useMemberSearch: the known ones, and the server's search in a large server).
  const wantsMembers = open && (kind === "user" || kind === "mentionable");
  const found = useMemberSearch(lookups.members, wantsMembers ? nameQuery(display) : null, { limit: SUGGESTIONS, substring: true });
  const items = open ? entitySuggestions(kind, display, lookups, found.results) : [];
  const listId = `picker-${String(common.name)}`;
  const choose = (index: number) => {
    const item = items[index];
    if (item) onPick(item.wire, item.display);
    setOpen(false);
  };
  return (
    <span class="picker">
      <input
        {...common}
        type="text"
        role="combobox"
        autocomplete="off"
        aria-autocomplete="list"
        aria-expanded={open && items.length > 0}
        aria-controls={listId}
        aria-activedescendant={open && items.length > 0 ? `${listId}-${active}` : undefined}
        placeholder={kind === "channel" ? "#channel" : "@name"}
        value={display}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onInput={(e) => {
          // Typed text is sent as it is (a raw id works too) until a suggestion is chosen.
          onPick(e.currentTarget.value, e.currentTarget.value);
          setOpen(true);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (!open && e.key === "ArrowDown") {
            setOpen(true);
            e.preventDefault();
            return;
          }
          if (open) listKeys(e, { count: items.length, active, setActive, choose, close: () => setOpen(false) });
        }}
      />
      {open && items.length > 0 && <SuggestionList id={listId} label={PICKER_LABELS[kind]} items={items} active={active} onChoose={choose} onHover={setActive} />}
    </span>
  );
}
