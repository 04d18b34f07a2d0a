/**
 * One server as the app holds it: channels and categories (only those the reader may view, as
 * the server filters them), the members it knows with their presence (a MemberDirectory: the
 * whole list of a small server, what has been looked at of a large one), roles, custom emojis,
 * slash commands and who is in each voice channel. Loaded when the server is first shown; gateway events keep it current.
 */
import { batch, signal } from "@preact/signals";
import type { RestClient } from "../../sdk/src/client.ts";
import { errorMessage } from "../lib/api-errors.ts";
import type { Category, Channel, Emoji, Role, ServerCommand } from "../lib/wire-types.ts";
import { ChannelPermissions } from "./channel-permissions.ts";
import { MemberDirectory, type MemberDirectoryDeps } from "./member-directory.ts";
import { VoiceOccupancy } from "./voice-occupants.ts";

export class ServerState {
  readonly channels = signal<Channel[] | null>(null);
  readonly categories = signal<Category[]>([]);
  readonly members: MemberDirectory;
  /** The reader's own bits in the channels shown; asked again with every channel reload (what changes channels changes them). */
  readonly permissions: ChannelPermissions;
  /** Who is in each voice channel, loaded with the channels. */
  readonly voice: VoiceOccupancy;
  readonly roles = signal<Role[]>([]);
  readonly emojis = signal<Emoji[]>([]);
  readonly commands = signal<ServerCommand[]>([]);
  readonly error = signal<string | null>(null);
  private loaded = false;
  private channelsAsked = false;
  private timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    readonly id: string,
    private readonly rest: RestClient,
    members: Omit<MemberDirectoryDeps, "rest">,
  ) {
    this.members = new MemberDirectory(id, { ...members, rest });
    this.permissions = new ChannelPermissions(rest);
    this.voice = new VoiceOccupancy(id, rest);
  }

  /** Loads everything once; later calls do nothing. */
  ensureLoaded(): void {
    if (this.loaded) return;
    this.loaded = true;
    if (!this.channelsAsked) void this.reloadChannels();
    this.channelsAsked = true;
    void this.members.ensureLoaded();
    void this.reloadRoles();
    void this.reloadEmojis();
    void this.reloadCommands();
  }

  /** Loads the channel list only (every server's, for its unread state), once. */
  ensureChannels(): void {
    if (this.channelsAsked) return;
    this.channelsAsked = true;
    void this.reloadChannels();
  }

  async reloadChannels(): Promise<void> {
    void this.voice.reload();
    try {
      this.setChannelList(await this.rest.request("listChannels", { params: { id: this.id } }));
    } catch (error) {
      this.error.value = errorMessage(error);
    }
  }

  /** The list as the server answered it. */
  setChannelList(list: { channels: Channel[]; categories: Category[] }): void {
    batch(() => {
      this.channels.value = list.channels;
      this.categories.value = list.categories;
    });
    this.permissions.refresh();
  }

  async reloadRoles(): Promise<void> {
    try {
      this.setRoles(await this.rest.request("listRoles", { params: { serverId: this.id } }));
    } catch {
      // Roles only colour mentions and hint at permissions; the rest of the app works without.
    }
  }

  async reloadEmojis(): Promise<void> {
    try {
      this.emojis.value = (await this.rest.request("listServerEmojis", { params: { id: this.id } })).emojis;
    } catch {
      this.emojis.value = [];
    }
  }

  async reloadCommands(): Promise<void> {
    try {
      this.commands.value = await this.rest.request("listServerCommands", { params: { serverId: this.id } });
    } catch {
      this.commands.value = [];
    }
  }

  /**
   * Coalesces reloads that many events in a row would ask for. "members" is for a reconnect that
   * lost events only: no member event makes the app ask for a list (the MemberDirectory applies them).
   */
  later(what: "channels" | "members" | "roles" | "commands", delayMs = 150): void {
    if (!(this.loaded || (what === "channels" && this.channelsAsked)) || this.timers.has(what)) return;
    this.timers.set(
      what,
      setTimeout(() => {
        this.timers.delete(what);
        if (what === "channels") void this.reloadChannels();
        else if (what === "members") void this.members.reload();
        else if (what === "roles") void this.reloadRoles();
        else void this.reloadCommands();
      }, delayMs),
    );
  }

  /** A reorder the server took without answering the list: its placements applied here, as its `channel:updated` events will apply them. */
  placeChannels(placements: { id: string; position: number; category_id?: string | null }[]): void {
    const list = this.channels.value;
    if (!list) return;
    const byId = new Map(placements.map((p) => [p.id, p]));
    let recategorized = false;
    this.channels.value = list.map((c) => {
      const p = byId.get(c.id);
      if (!p) return c;
      const category_id = p.category_id === undefined ? c.category_id : p.category_id;
      recategorized ||= category_id !== c.category_id;
      return { ...c, position: p.position, category_id };
    });
    if (recategorized) this.permissions.refresh();
  }

  upsertChannel(channel: Channel): void {
    const list = this.channels.value;
    if (!list) return;
    const index = list.findIndex((c) => c.id === channel.id);
    // Moved to another category: that category's overrides apply now.
    if (index !== -1 && list[index]!.category_id !== channel.category_id) this.permissions.refresh();
    this.channels.value = index === -1 ? [...list, channel] : list.map((c) => (c.id === channel.id ? channel : c));
  }

  removeChannel(channelId: string): void {
    this.permissions.forget(channelId);
    this.voice.forget(channelId);
    const list = this.channels.value;
    if (list) this.channels.value = list.filter((c) => c.id !== channelId);
  }

  upsertRole(role: Role): void {
    const index = this.roles.value.findIndex((r) => r.id === role.id);
    this.setRoles(index === -1 ? [...this.roles.value, role] : this.roles.value.map((r) => (r.id === role.id ? role : r)));
  }

  removeRole(roleId: string): void {
    this.setRoles(this.roles.value.filter((r) => r.id !== roleId));
  }

  /** The roles, and the member list's order where it depends on them (hoisted roles). */
  setRoles(roles: Role[]): void {
    batch(() => {
      this.roles.value = roles;
      this.members.setRoles(roles);
    });
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.members.dispose();
    this.permissions.dispose();
  }
}
