/** The bot's slash commands, read only: the bot registers them itself (docs/commands.md). */
import type { Application, CommandOption } from "../../lib/wire-types.ts";
import { optionInput } from "../../lib/command-wire.ts";
import { OPTION_TYPES } from "../../lib/shared-rules.ts";
import { rest, store } from "../../state/app-state.ts";
import { ErrorAlert } from "../../components/error-alert.tsx";
import { useLoad } from "../../components/use-async.ts";
import { Section } from "./portal-layout.tsx";

/** An option's declared type in words, and the picker the chat's composer infers from its name. */
function typeText(option: CommandOption): string {
  const declared = Object.entries(OPTION_TYPES).find(([, code]) => code === option.type)?.[0].toLowerCase() ?? "string";
  const input = optionInput({ ...option, choices: undefined });
  const inferred = option.type === OPTION_TYPES.STRING && input !== "text" ? ` (a ${input} picker in the chat)` : "";
  return declared + inferred;
}

export function CommandsSection({ app }: { app: Application }) {
  const { data: commands, error } = useLoad(() => rest.request("listCommands", { params: { appId: app.id } }), [app.id]);
  const serverName = (id: string) => store.servers.value?.find((s) => s.id === id)?.name ?? "a server";

  return (
    <Section id="commands-heading" title="Commands" intro="The slash commands your bot registered. The bot registers them with its token; they are shown here as it left them.">
      <ErrorAlert message={error} />
      {commands === null && !error && (
        <p class="muted" role="status">
          Loading commands…
        </p>
      )}
      {commands?.length === 0 && (
        <p class="empty">
          No commands yet. The bot registers its global commands with <code>POST /api/v1/oauth2/commands</code>.
        </p>
      )}
      {commands && commands.length > 0 && (
        <ul class="command-defs">
          {commands.map((command) => (
            <li key={command.id} class="command-def">
              <h3>
                <code>/{command.name}</code>{" "}
                <span class="scope-tag">{command.server_id ? `Only in ${serverName(command.server_id)}` : "Global"}</span>
              </h3>
              {command.description ? <p>{command.description}</p> : <p class="muted">No description.</p>}
              {command.options.length > 0 ? (
                <table class="option-table">
                  <caption class="visually-hidden">Options of /{command.name}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Option</th>
                      <th scope="col">Type</th>
                      <th scope="col">Required</th>
                      <th scope="col">Description</th>
                    </tr>
                  </thead>
                  <tbody>
                    {command.options.map((option) => (
                      <tr key={option.name}>
                        <th scope="row">
                          <code>{option.name}</code>
                        </th>
                        <td>{typeText(option)}</td>
                        <td>{option.required ? "Required" : "Optional"}</td>
                        <td>
                          {option.description || <span class="muted">None</span>}
                          {option.choices && option.choices.length > 0 && (
                            <span class="muted small option-choices">Choices: {option.choices.map((c) => c.name).join(", ")}</span>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : (
                <p class="muted small">No options.</p>
              )}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
