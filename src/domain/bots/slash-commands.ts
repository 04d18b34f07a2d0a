/**
 * Slash commands in user messages (SPEC.md "Interaction (delivered to bots)"): `Messages.send`
 * detects them before storing and delivers the interaction after. Notes: docs/interactions.md.
 */
import type { Store } from "../../store/store.ts";
import type { UserRow } from "../../store/users-repo.ts";
import { missingPermission, type ChannelContext } from "../access/access.ts";
import { PERMISSIONS } from "../access/permission-bits.ts";
import { hasPermission } from "../access/permissions.ts";
import { badRequest } from "../shared/errors.ts";
import { rooms, type EventBus } from "../shared/events.ts";
import type { Message } from "../shared/shapes.ts";
import { parseCommandArgs, parseCommandInvocation, type OptionValue } from "./command-args.ts";
import type { CommandOption } from "./command-option.ts";

/** A user's message that runs a bot's slash command, resolved and parsed, not yet stored. */
interface SlashCommandInvocation {
  /** What chat history stores: the message with the routing flag stripped. */
  content: string;
  applicationId: string;
  botUserId: string;
  command: string;
  args: string;
  options: Record<string, OptionValue>;
}

const mention = (userId: string) => `<@${userId}>`;
/** `routeTo` may arrive as a bare id or still wrapped as a mention. */
const unwrapMention = (value: string) => value.replace(/^<@!?/, "").replace(/>$/, "").trim().toLowerCase();

/**
 * The slash-command rule of `Messages.send`, for a message a user (never a bot or webhook)
 * sends: null when the content is not `/<name>` of a command usable in the server (then it is
 * an ordinary chat line). Otherwise it needs USE_APPLICATION_COMMANDS, resolves which bot
 * (`--__bot <@botId>` when several share the name) and parses the arguments; any failure
 * throws before anything is stored.
 */
export async function detectSlashCommand(store: Store, context: ChannelContext, content: string): Promise<SlashCommandInvocation | null> {
  if (!content.startsWith("/")) return null;
  const invocation = parseCommandInvocation(content);
  if (!invocation) return null;
  const candidates = uniqueByBot(await store.commands.findForInvocation(context.channel.server_id, invocation.name));
  if (candidates.length === 0) return null;
  if (!hasPermission(context.permissions, PERMISSIONS.USE_APPLICATION_COMMANDS)) throw missingPermission(PERMISSIONS.USE_APPLICATION_COMMANDS, context.member);

  const name = candidates[0]!.command.name;
  const choices = candidates.map((c) => mention(c.botUserId)).join(", ");
  const hint = `add --__bot <@botId> (one of ${choices})`;
  let chosen = candidates[0]!;
  if (invocation.routeTo !== null) {
    const wanted = unwrapMention(invocation.routeTo);
    const match = candidates.find((c) => c.botUserId.toLowerCase() === wanted);
    if (!match) throw badRequest(`No bot ${mention(wanted)} has /${name}: ${hint}`);
    chosen = match;
  } else if (candidates.length > 1) {
    throw badRequest(`Several bots have /${name}: ${hint}`);
  }

  const parsed = parseCommandArgs(invocation.args, parseOptions(chosen.command.options));
  if (!parsed.ok) throw badRequest(parsed.error);
  return {
    content: invocation.cleaned,
    applicationId: chosen.applicationId,
    botUserId: chosen.botUserId,
    command: chosen.command.name,
    args: parsed.args,
    options: parsed.options,
  };
}

/** Stores the interaction for the stored command message and hands it to that bot alone. */
export async function deliverSlashCommand(store: Store, bus: EventBus, invocation: SlashCommandInvocation, message: Message, author: UserRow, serverId: string): Promise<void> {
  const payload = {
    id: Bun.randomUUIDv7(),
    type: "slash_command" as const,
    command: invocation.command,
    args: invocation.args,
    options: invocation.options,
    channel_id: message.channel_id,
    server_id: serverId,
    message_id: message.id,
    user: { id: author.id, username: author.username },
  };
  await store.interactions.insert({
    id: payload.id,
    applicationId: invocation.applicationId,
    botUserId: invocation.botUserId,
    type: "slash_command",
    userId: author.id,
    serverId,
    channelId: message.channel_id,
    messageId: message.id,
    data: JSON.stringify(payload),
  });
  bus.publish(rooms.user(invocation.botUserId), "interaction:create", payload);
}

type Candidate = Awaited<ReturnType<Store["commands"]["findForInvocation"]>>[number];

/** One command per bot: a server-scoped command shadows the same bot's global one. */
function uniqueByBot(candidates: Candidate[]): Candidate[] {
  const byBot = new Map<string, Candidate>();
  for (const candidate of candidates) {
    const seen = byBot.get(candidate.botUserId);
    if (!seen || (seen.command.server_id === null && candidate.command.server_id !== null)) byBot.set(candidate.botUserId, candidate);
  }
  return [...byBot.values()];
}

/** The stored option definitions (validated when registered). */
function parseOptions(json: string): CommandOption[] {
  const options: unknown = JSON.parse(json);
  return Array.isArray(options) ? (options as CommandOption[]) : [];
}
