/**
 * Buttons and selects of a bot's message. Pressing one emits `message:component`; the ack's
 * error is shown beside them, and the press waits for the bot's answer like a command does.
 */
import { useState } from "preact/hooks";
import type { ChannelSelect, Component, Message, StringSelect } from "../lib/wire-types.ts";
import { errorMessage } from "../lib/api-errors.ts";
import { gateway } from "../state/app-state.ts";
import { usePlace } from "./place-context.ts";
import { Icon } from "./icons.tsx";
import { ErrorAlert } from "./error-alert.tsx";

export function MessageComponents({ components, message }: { components: Component[]; message: Message }) {
  const place = usePlace();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  async function press(customId: string, values?: string[]) {
    setBusy(customId);
    setError(null);
    // Waiting starts before the press is sent: a bot that answers before the ack is not missed.
    const wait = place.timeline.expectAnswer(message.user_id, `${message.username} did not answer.`);
    const refusal = await gateway.emit("message:component", values ? { message_id: message.id, custom_id: customId, values } : { message_id: message.id, custom_id: customId }).then(
      () => null,
      (failure: unknown) => errorMessage(failure),
    );
    setBusy(null);
    if (refusal) {
      wait.cancel();
      setError(refusal);
      return;
    }
    wait.sent(message.id);
  }

  return (
    <div class="components">
      <div class="component-row">
        {components.map((component) => {
          if (component.type === "button") {
            if (component.style === "link") {
              return (
                <button
                  key={component.url}
                  type="button"
                  class="component-button style-link"
                  disabled={component.disabled}
                  onClick={() => window.open(component.url, "_blank", "noopener,noreferrer")}
                >
                  {component.emoji && <span aria-hidden="true">{component.emoji.name} </span>}
                  {component.label}
                  <Icon name="external" size={14} />
                </button>
              );
            }
            return (
              <button
                key={component.custom_id}
                type="button"
                class={`component-button style-${component.style}`}
                disabled={component.disabled || busy === component.custom_id}
                aria-busy={busy === component.custom_id}
                onClick={() => press(component.custom_id)}
              >
                {component.emoji && <span aria-hidden="true">{component.emoji.name} </span>}
                {component.label}
              </button>
            );
          }
          if (component.type === "string_select") {
            return (
              <SelectControl
                key={component.custom_id}
                component={component}
                options={component.options.map((o) => ({ value: o.value, label: o.emoji ? `${o.emoji.name} ${o.label}` : o.label, description: o.description, selected: o.default }))}
                onChoose={(values) => press(component.custom_id, values)}
              />
            );
          }
          const channels = (place.server?.channels.value ?? []).filter((c) => !component.channel_types?.length || component.channel_types.includes(c.type));
          return (
            <SelectControl
              key={component.custom_id}
              component={component}
              options={channels.map((c) => ({ value: c.id, label: c.type === "voice" ? `${c.name} (voice)` : `#${c.name}` }))}
              onChoose={(values) => press(component.custom_id, values)}
            />
          );
        })}
      </div>
      <ErrorAlert message={error} />
    </div>
  );
}

interface ChoiceOption {
  value: string;
  label: string;
  description?: string;
  selected?: boolean;
}

/**
 * A select named by its placeholder: a drop-down (a combobox) when one value is picked, and
 * a list box with an "Apply" button when several may be.
 */
function SelectControl({ component, options, onChoose }: { component: StringSelect | ChannelSelect; options: ChoiceOption[]; onChoose: (values: string[]) => void }) {
  const placeholder = component.placeholder || (component.type === "channel_select" ? "Select a channel" : "Make a selection");
  const max = component.max_values ?? 1;
  const [picked, setPicked] = useState<string[]>(options.filter((o) => o.selected).map((o) => o.value));
  if (max <= 1) {
    return (
      <select
        class="component-select"
        aria-label={placeholder}
        value={picked[0] ?? ""}
        onChange={(e) => {
          const value = e.currentTarget.value;
          setPicked([value]);
          if (value) onChoose([value]);
        }}
      >
        <option value="" disabled>
          {placeholder}
        </option>
        {options.map((o) => (
          <option key={o.value} value={o.value} title={o.description}>
            {o.label}
          </option>
        ))}
      </select>
    );
  }
  return (
    <div class="component-multi">
      <select
        multiple
        class="component-select"
        aria-label={placeholder}
        size={Math.min(options.length, 5)}
        onChange={(e) => setPicked(Array.from(e.currentTarget.selectedOptions, (o) => o.value))}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value} selected={picked.includes(o.value)} title={o.description}>
            {o.label}
          </option>
        ))}
      </select>
      <button type="button" class="secondary" onClick={() => onChoose(picked)}>
        Apply
      </button>
    </div>
  );
}
