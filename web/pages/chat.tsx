/**
 * `/channels/@me[/<dm>]` (direct messages) and `/channels/<server>[/<channel>]`: the
 * server rail, the channel (or DM) list, the open place and the member list; on a phone the
 * first two are in a drawer and the last in a sheet (NavDrawer, MembersPanel).
 */
import { useEffect, useState } from "preact/hooks";
import { useRoute } from "preact-iso/router";
import { Redirect } from "../app.tsx";
import type { Channel, Dm, MeUser, Server } from "../lib/wire-types.ts";
import { firstTextChannel } from "../lib/channel-tree.ts";
import { basePermissionsOf, whyCannotSend } from "../lib/permissions.ts";
import { ALL_PERMISSIONS } from "../lib/shared-rules.ts";
import { session, store } from "../state/app-state.ts";
import type { ServerState } from "../state/server-state.ts";
import { dmName, placeOf } from "../state/store.ts";
import { ChannelSidebar } from "../components/channel-sidebar.tsx";
import { DmSidebar } from "../components/dm-sidebar.tsx";
import { MemberList } from "../components/member-list.tsx";
import type { PlaceContextValue } from "../components/place-context.ts";
import { PlaceView } from "../components/place-view.tsx";
import { ServerRail } from "../components/server-rail.tsx";
import { CreateServerDialog, JoinServerDialog } from "../components/server-dialogs.tsx";
import { STATUS_LABELS } from "../components/avatar.tsx";
import { Icon } from "../components/icons.tsx";
import { VoiceRoom } from "../voice/voice-room.tsx";
import { CallButton } from "../voice/call-ui.tsx";
import { channelLabel } from "../lib/format.ts";
import { useReadTracking } from "../components/use-read-tracking.ts";
import { NotificationPrompt } from "../components/notification-prompt.tsx";
import { FriendsPage } from "../components/friends-page.tsx";
import { ChatShortcuts } from "../components/use-shortcuts.tsx";
import { MembersPanel, MembersToggle } from "../components/members-panel.tsx";
import { NavDrawer, NavOpener } from "../components/nav-drawer.tsx";
import { layoutSize, navOpen } from "../state/layout.ts";

export function ChatPage() {
  const { params } = useRoute();
  const serverId = params.serverId ?? "@me";
  const me = session.value!.user;
  // A page opened from the drawer (settings): coming back shows the conversation, not the drawer.
  useEffect(() => () => void (navOpen.value = false), []);
  return (
    <div class="chat-page">
      <NotificationPrompt />
      <ChatShortcuts serverId={serverId} channelId={params.channelId} />
      <div class="chat">
        {serverId === "@me" ? <DirectMessages dmId={params.channelId} me={me} /> : <ServerView serverId={serverId} channelId={params.channelId} me={me} />}
      </div>
    </div>
  );
}

function ServerView({ serverId, channelId, me }: { serverId: string; channelId: string | undefined; me: MeUser }) {
  // Asked for on a phone or a tablet (a desktop always shows the list); a new size starts closed.
  const [showMembers, setShowMembers] = useState(false);
  const size = layoutSize.value;
  useEffect(() => setShowMembers(false), [size]);
  const servers = store.servers.value;
  const server = servers?.find((s) => s.id === serverId);
  const rail = <ServerRail activeServerId={serverId} />;
  if (servers === null) {
    return (
      <>
        <NavDrawer rail={rail} list={null} />
        <p class="page-state" role="status">Loading…</p>
      </>
    );
  }
  if (!server) {
    return (
      <>
        <NavDrawer rail={rail} list={null} />
        <div class="page-state">
          <NavOpener />
          <h1>Server not found</h1>
          <p class="muted">You are not a member of this server, or it no longer exists.</p>
          <a href="/channels/@me">Back to your messages</a>
        </div>
      </>
    );
  }
  const state = store.server(server.id);
  const channels = state.channels.value;
  const channel = channels?.find((c) => c.id === channelId);
  if (channels && !channelId) {
    const first = firstTextChannel(channels, state.categories.value);
    if (first) return <Redirect to={`/channels/${server.id}/${first.id}`} />;
  }
  return (
    <>
      <NavDrawer rail={rail} list={<ChannelSidebar server={server} state={state} activeChannelId={channelId} />} />
      {channel ? (
        <ChannelPlace key={channel.id} server={server} state={state} channel={channel} me={me} showMembers={showMembers} onToggleMembers={() => setShowMembers(!showMembers)} />
      ) : (
        <div class="page-state">
          <NavOpener />
          {channels === null ? (
            <p role="status">Loading…</p>
          ) : channelId ? (
            <>
              <h1>Channel not found</h1>
              <p class="muted">It was deleted, or you can no longer see it.</p>
            </>
          ) : (
            <>
              <h1>No text channels</h1>
              <p class="muted">There is no text channel you can see in {server.name}.</p>
            </>
          )}
        </div>
      )}
      <MembersPanel shown={showMembers} onClose={() => setShowMembers(false)}>
        <MemberList state={state} meId={me.id} />
      </MembersPanel>
    </>
  );
}

function ChannelPlace({ server, state, channel, me, showMembers, onToggleMembers }: {
  server: Server;
  state: ServerState;
  channel: Channel;
  me: MeUser;
  showMembers: boolean;
  onToggleMembers: () => void;
}) {
  const timeline = store.channelTimeline(channel);
  useEffect(() => void store.openChannel(channel), [channel.id]);
  const reading = useReadTracking(timeline);
  // A channel that became hidden (no event tells a member who lost its view): ask for the list again.
  const failed = timeline.error.value === "Channel not found";
  useEffect(() => {
    if (failed) state.later("channels", 0);
  }, [failed]);
  // The reader's own member only: this page does not re-render on other members' presence.
  const self = state.members.self.value;
  const roles = state.roles.value;
  const mine = state.permissions.of(channel.id);
  const value: PlaceContextValue = {
    place: { kind: "channel", channelId: channel.id },
    timeline,
    me,
    server: state,
    channel,
    dm: null,
    label: channelLabel(channel),
    permissions: basePermissionsOf(self, roles, server.owner_id),
    channelBits: mine?.permissions ?? null,
    // A mention of a member the app does not know yet (a large server) is looked up once.
    userName: (id) => (id === me.id ? me.username : state.members.lookup(id)?.username),
    channelOf: (id) => state.channels.value?.find((c) => c.id === id),
    roleOf: (id) => roles.find((r) => r.id === id),
  };
  const voiceWithoutChat = channel.type === "voice" && !channel.chat_enabled;
  return (
    <PlaceView
      value={value}
      {...reading}
      above={channel.type === "voice" ? <VoiceRoom server={server} state={state} channel={channel} me={me} /> : undefined}
      chat={!voiceWithoutChat}
      title={
        <>
          <span class="channel-icon">
            <Icon name={channel.type === "voice" ? "speaker" : "hash"} size={20} />
          </span>
          {channel.name}
        </>
      }
      topic={channel.topic}
      cannotSend={whyCannotSend(channel, mine, Date.now() / 1000)}
      tools={<MembersToggle shown={showMembers} onToggle={onToggleMembers} />}
    />
  );
}

function DirectMessages({ dmId, me }: { dmId: string | undefined; me: MeUser }) {
  const dms = store.dms.value;
  const dm = dms?.find((c) => c.id === dmId);
  return (
    <>
      <NavDrawer rail={<ServerRail activeServerId="@me" />} list={<DmSidebar activeId={dmId} />} />
      {dm ? (
        <DmPlace key={dm.id} dm={dm} me={me} />
      ) : !dmId ? (
        <FriendsPage intro={store.servers.value?.length === 0 ? <FirstSteps name={me.username} /> : undefined} />
      ) : (
        <div class="page-state">
          <NavOpener />
          {dms !== null ? (
            <>
              <h1>Conversation not found</h1>
              <p class="muted">You are not in this conversation.</p>
            </>
          ) : (
            <p role="status">Loading…</p>
          )}
        </div>
      )}
    </>
  );
}

/** Above the Friends page of someone in no server yet: what to do first. */
function FirstSteps({ name }: { name: string }) {
  const [dialog, setDialog] = useState<"create" | "join" | null>(null);
  return (
    <section class="first-steps" aria-labelledby="first-steps-title">
      <h2 id="first-steps-title">Welcome to Hearth, {name}!</h2>
      <p class="muted">You are not in a server yet. Start your own, or join one with an invite link from a friend.</p>
      <div class="actions">
        <button type="button" class="primary" onClick={() => setDialog("create")}>
          Create your first server
        </button>
        <button type="button" class="secondary" onClick={() => setDialog("join")}>
          Join with an invite
        </button>
      </div>
      {dialog === "create" && <CreateServerDialog onClose={() => setDialog(null)} />}
      {dialog === "join" && <JoinServerDialog onClose={() => setDialog(null)} />}
    </section>
  );
}

function DmPlace({ dm, me }: { dm: Dm; me: MeUser }) {
  const timeline = store.dmTimeline(dm);
  useEffect(() => void timeline.open(), [dm.id]);
  const reading = useReadTracking(timeline);
  const name = dmName(dm);
  const other = dm.type === "dm" ? dm.recipients[0] : undefined;
  const label = dm.type === "dm" ? `@${other?.username ?? name}` : name;
  const people = [...dm.recipients, { id: me.id, username: me.username }];
  const value: PlaceContextValue = {
    place: placeOf(dm),
    timeline,
    me,
    server: null,
    channel: null,
    dm,
    label,
    permissions: ALL_PERMISSIONS,
    channelBits: null,
    userName: (id) => people.find((p) => p.id === id)?.username,
    channelOf: () => undefined,
    roleOf: () => undefined,
  };
  return (
    <PlaceView
      value={value}
      {...reading}
      tools={<CallButton dm={dm} />}
      title={label}
      topic={other ? STATUS_LABELS[other.status] : `${dm.recipients.length + 1} members: ${people.map((p) => p.username).join(", ")}`}
    />
  );
}
