/**
 * `/invite?bot=<bot_user_id>&permissions=<bitfield>`: a bot's public invite card, then (once
 * logged in) a server the reader manages and the permissions to give it, pre-set from the link.
 * "Authorize" adds the bot; the server's refusal (private bot, locked permissions) is shown.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso/router";
import type { BotAddResult, BotInviteCard, Server } from "../lib/wire-types.ts";
import { errorMessage } from "../lib/api-errors.ts";
import { parseBotInviteQuery } from "../lib/bot-invite.ts";
import { PERMISSION_LABELS, permissionNames } from "../lib/shared-rules.ts";
import { rest, session, store } from "../state/app-state.ts";
import { Avatar } from "../components/avatar.tsx";
import { ErrorAlert } from "../components/error-alert.tsx";
import { PermissionCheckboxes } from "../components/permission-checkboxes.tsx";
import { useAction, useLoad } from "../components/use-async.ts";
import { AuthLayout } from "./auth-layout.tsx";
import "./invite-bot.css";

export default function InviteBotPage() {
  const { query, url } = useLocation();
  const link = parseBotInviteQuery(query);
  const { data: card, error } = useLoad(async () => (link.botUserId ? rest.request("getBotInvite", { params: { botUserId: link.botUserId } }) : null), [link.botUserId]);

  let body;
  if (!link.botUserId) {
    body = <Problem title="This invite link is incomplete" message="It does not say which bot to add: a bot invite link looks like /invite?bot=<bot id>&permissions=<number>." />;
  } else if (error) {
    body = <Problem title="This bot cannot be added" message={error} />;
  } else if (!card) {
    body = (
      <p class="muted" role="status">
        Loading the bot…
      </p>
    );
  } else {
    const bits = link.permissions ?? card.default_permissions;
    body = (
      <>
        <BotCard card={card} />
        {link.invalidPermissions !== null && (
          <p class="notice" role="status">
            The link's permissions ("{link.invalidPermissions}") are not a valid number, so the bot's default permissions are shown.
          </p>
        )}
        {session.value ? <AuthorizeForm card={card} initialBits={bits} /> : <SignInStep card={card} bits={bits} next={url} />}
      </>
    );
  }

  return <AuthLayout class="invite-bot">{body}</AuthLayout>;
}

function Problem({ title, message }: { title: string; message: string }) {
  return (
    <>
      <h1 id="auth-title">{title}</h1>
      <p class="error" role="alert">
        {message}
      </p>
      <p>
        <a href={session.value ? "/channels/@me" : "/login"}>{session.value ? "Back to Hearth" : "Go to the login page"}</a>
      </p>
    </>
  );
}

/** The bot's public card: banner, avatar, name, description. */
function BotCard({ card }: { card: BotInviteCard }) {
  return (
    <div class="bot-card">
      {card.banner && <img class="bot-card-banner" src={card.banner} alt="" style={{ objectPosition: `50% ${card.banner_offset}%` }} />}
      <div class="bot-card-head">
        <Avatar name={card.name} src={card.avatar} size={64} />
        <div class="bot-card-title">
          <p class="muted small">An application wants to join a server</p>
          <h1 id="auth-title">
            <span class="bot-card-name">{card.name}</span> <span class="badge bot">BOT</span>
          </h1>
        </div>
      </div>
      {card.description ? <p class="bot-card-description">{card.description}</p> : <p class="muted">This bot has no description.</p>}
      {!card.public_invite && <p class="notice small">This is a private bot: only its owner can add it to a server.</p>}
    </div>
  );
}

/** Not logged in: what the bot asks for, and the way to log in and come back here. */
function SignInStep({ card, bits, next }: { card: BotInviteCard; bits: number; next: string }) {
  const labels = permissionNames(bits).map((name) => PERMISSION_LABELS[name]);
  const back = encodeURIComponent(next);
  return (
    <>
      <h2 class="invite-bot-subtitle">It asks for these permissions</h2>
      {labels.length ? (
        <ul class="permission-list">
          {labels.map((label) => (
            <li key={label}>{label}</li>
          ))}
        </ul>
      ) : (
        <p class="muted">No permissions.</p>
      )}
      <p>Log in to choose a server for {card.name}. You come back here afterwards.</p>
      <div class="actions">
        <a class="button primary" href={`/login?next=${back}`}>
          Log in
        </a>
        <a class="button" href={`/register?next=${back}`}>
          Create an account
        </a>
      </div>
    </>
  );
}

/** The servers where the reader may add bots: those they own or are an admin of (docs/applications.md). */
function useManagedServers(): { servers: Server[] | null; error: string | null } {
  const all = store.servers.value;
  const me = session.value?.user.id;
  const [managed, setManaged] = useState<Server[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = all?.map((s) => s.id).join(",") ?? null;
  useEffect(() => {
    if (!all || !me) return;
    let cancelled = false;
    // Owned servers need no question; for the others, the reader's own member says their built-in
    // role (one member, whatever the server's size).
    Promise.all(
      all.map(async (server) => {
        if (server.owner_id === me) return server;
        const mine = await rest.request("getMember", { params: { id: server.id, targetUserId: me } }).catch(() => null);
        return mine?.role === "admin" ? server : null;
      }),
    ).then(
      (list) => !cancelled && setManaged(list.filter((s): s is Server => s !== null)),
      (failure) => !cancelled && setError(errorMessage(failure)),
    );
    return () => {
      cancelled = true;
    };
  }, [key, me]);
  return { servers: managed, error: error ?? store.serversError.value };
}

function AuthorizeForm({ card, initialBits }: { card: BotInviteCard; initialBits: number }) {
  const { servers, error: serversError } = useManagedServers();
  const [serverId, setServerId] = useState("");
  const [bits, setBits] = useState(initialBits);
  const [choiceError, setChoiceError] = useState<string | null>(null);
  const authorizing = useAction();
  const [done, setDone] = useState<{ result: BotAddResult; server: Server } | null>(null);
  const picker = useRef<HTMLSelectElement>(null);
  const doneLink = useRef<HTMLAnchorElement>(null);
  useEffect(() => setBits(initialBits), [initialBits]);
  useEffect(() => {
    if (done) doneLink.current?.focus();
  }, [done]);

  if (done) {
    return (
      <div class="invite-bot-done">
        <p class="success" role="status">
          {done.result.joined ? `${card.name} was added to ${done.server.name}.` : `${card.name} was already in ${done.server.name}: its role now has the permissions you chose.`}
        </p>
        <div class="actions">
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDone(null);
              setServerId("");
            }}
          >
            Add to another server
          </button>
          <a ref={doneLink} class="button primary" href={`/channels/${done.server.id}`}>
            Go to {done.server.name}
          </a>
        </div>
      </div>
    );
  }

  function authorize(event: Event) {
    event.preventDefault();
    const server = servers?.find((s) => s.id === serverId);
    setChoiceError(server ? null : "Choose a server first.");
    if (!server) {
      authorizing.reset();
      picker.current?.focus();
      return;
    }
    void authorizing.run(async () => setDone({ result: await rest.request("addBotToServer", { params: { botUserId: card.bot_user_id, serverId: server.id }, body: { permissions: bits } }), server }));
  }

  const locked = card.invite_permission_locked;
  return (
    <form class="form" onSubmit={authorize}>
      <div class="field">
        <label for="invite-bot-server">Server</label>
        <select
          id="invite-bot-server"
          ref={picker}
          value={serverId}
          disabled={!servers?.length}
          aria-describedby="invite-bot-server-hint"
          onChange={(e) => setServerId(e.currentTarget.value)}
        >
          <option value="">{servers === null ? "Loading your servers…" : servers.length ? "Choose a server" : "No server you manage"}</option>
          {servers?.map((server) => (
            <option key={server.id} value={server.id}>
              {server.name}
            </option>
          ))}
        </select>
        <small id="invite-bot-server-hint" class="muted">
          {servers?.length === 0 ? (
            <>
              Bots can be added only to servers you own or are an admin of. <a href="/channels/@me">Create a server</a> first.
            </>
          ) : (
            "Servers you own or are an admin of."
          )}
        </small>
      </div>
      <ErrorAlert message={serversError} />
      <PermissionCheckboxes
        bitfield
        legend="Permissions"
        value={bits}
        onChange={setBits}
        disabled={locked}
        note={
          locked ? (
            <p class="notice">The bot's developer locked these permissions: it can only be added with them exactly.</p>
          ) : (
            "The bot gets a role with these permissions. Uncheck what it should not have; server admins can change the role later."
          )
        }
      />
      <ErrorAlert message={choiceError ?? authorizing.error} />
      <div class="actions">
        <a class="button" href="/channels/@me">
          Cancel
        </a>
        <button type="submit" class="primary" disabled={authorizing.busy || !servers?.length}>
          {authorizing.busy ? "Authorizing…" : "Authorize"}
        </button>
      </div>
    </form>
  );
}
