import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { boundedText, displayName, integer, parseInput } from "../../domain/shared/validation.ts";
import type { AuthPlugin } from "../auth.ts";
import { readMultipart } from "../multipart.ts";
import { MEMBER_LIST_DESCRIPTION, MemberListQuery, SearchQuery, body } from "../schemas.ts";
import { doc } from "../operation-doc.ts";
import { twoFactorProof } from "../two-factor-proof.ts";
import { FileField } from "../../reference/json-schema.ts";
import { Message, Success, VoiceChannelState } from "../../domain/shared/shapes.ts";
import { Member, MutedServer, Server, ServerGif, ServerMute, ServerReadState } from "../responses/community.ts";

/** Routes the spec marks "(2FA)" read the current code here when the account has 2FA on (403 when missing or wrong). */
const TWO_FACTOR_HEADER = { "x-2fa-code": "The current TOTP code (or an unused recovery code), when the account has two-factor authentication on" };

const { server } = LIMITS;
const name = v.pipe(
  displayName,
  v.minLength(1, "must not be empty"),
  v.maxLength(server.nameLength, `must be at most ${server.nameLength} characters`),
);
const description = boundedText(server.descriptionLength);

const CreateBody = body({ name, description: v.optional(description) });
const UpdateBody = body({ name: v.optional(name), description: v.optional(description) });
const SettingsBody = body({
  system_channel_id: v.optional(v.nullable(v.pipe(v.string("must be a string"), v.uuid("must be a channel id")))),
  default_notifications: v.optional(v.picklist(["all", "mentions"], "must be all or mentions")),
  welcome_message: v.optional(boundedText(server.welcomeMessageLength)),
});
const BannerOffsetBody = body({ banner_offset: integer(LIMITS.bannerOffsetMin, LIMITS.bannerOffsetMax) });
const VanityBody = body({
  code: v.nullable(
    v.pipe(v.string("must be a string"), v.trim(), v.toLowerCase(), v.regex(
      new RegExp(`^[a-z0-9-]{${server.vanityMin},${server.vanityMax}}$`),
      `must be ${server.vanityMin}-${server.vanityMax} lowercase letters, digits or -`,
    )),
  ),
});
const ReorderBody = body({
  order: v.pipe(v.array(v.pipe(v.string("must be a string"), v.uuid("must be server ids")), "must be an array of server ids"), v.maxLength(server.listOrderEntries, "is too long")),
});
const MuteBody = v.optional(
  body({ duration: v.optional(integer(1, server.muteMaxSeconds)) }),
  {},
);

const GifFields = v.object({
  name: v.optional(v.pipe(v.string("must be text"), v.trim(), v.regex(new RegExp(`^[\\w-]{1,${server.gifNameLength}}$`), `must be 1-${server.gifNameLength} letters, digits, _ or -`))),
  kind: v.optional(v.picklist(["gif", "sticker"], "must be gif or sticker"), "gif"),
});

/** /api/v1/servers: servers, their settings and images, the caller's list, members, search, who is in voice. */
export const serverRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/servers", tags: ["Servers"] })
    .use(auth)
    .get("/", ({ user }) => domain.servers.list(user), { auth: true, detail: doc("listServers", v.array(Server)) })
    .post(
      "/",
      async ({ user, body, set }) => {
        set.status = 201;
        return domain.servers.create(user, body);
      },
      { auth: true, body: CreateBody, detail: doc("createServer", { 201: Server }) },
    )
    .put("/reorder", ({ user, body }) => domain.servers.reorder(user, body.order), { auth: true, body: ReorderBody, detail: doc("reorderServers", v.array(Server)) })
    .get("/me/muted", ({ user }) => domain.servers.mutedServers(user), { auth: true, detail: doc("listMutedServers", v.array(MutedServer)) })
    .get("/:id", ({ user, params }) => domain.servers.get(params.id, user), { auth: true, detail: doc("getServer", Server) })
    .put("/:id", ({ user, params, body }) => domain.servers.update(params.id, user, body), { auth: true, body: UpdateBody, detail: doc("updateServer", Server) })
    .delete(
      "/:id",
      async ({ user, params, headers, request, server }) => {
        await domain.servers.delete(params.id, user, twoFactorProof({ headers, request, server }));
        return { success: true };
      },
      { auth: true, detail: doc("deleteServer", Success, { errors: [429], headers: TWO_FACTOR_HEADER }) },
    )
    .get("/:id/members", ({ user, params, query }) => domain.members.list(params.id, user.id, query), {
      auth: true,
      query: MemberListQuery,
      detail: doc("listMembers", v.array(Member), { description: MEMBER_LIST_DESCRIPTION }),
    })
    // Named as the member routes beside it name the same place (one path to the reference).
    .get("/:id/members/:targetUserId", ({ user, params }) => domain.members.one(params.id, user.id, params.targetUserId), {
      auth: true,
      detail: doc("getMember", Member, { description: "One member, in the member list's shape (docs/servers.md, \"Members\")" }),
    })
    .get("/:id/search", ({ user, params, query }) => domain.messages.searchServer(params.id, user, query.q, query.limit ?? LIMITS.searchDefault), {
      auth: true,
      query: SearchQuery,
      detail: doc("searchServerMessages", v.array(Message)),
    })
    .get("/:id/voice-states", ({ user, params }) => domain.voiceOccupants.list(params.id, user.id), {
      auth: true,
      detail: doc("listVoiceStates", v.array(VoiceChannelState), {
        description: "Who is in each voice channel the caller may view, for those with someone in them (docs/voice.md, \"Who is in each voice channel\")",
      }),
    })
    .post(
      "/:id/icon",
      async ({ user, params, request }) =>
        domain.servers.setImage(params.id, user, "icon", (await readMultipart(request, LIMITS.serverIconBytes)).get("icon")),
      { auth: true, parse: "none", detail: doc("setServerIcon", Server, { multipart: v.object({ icon: FileField }) }) },
    )
    .post(
      "/:id/banner",
      async ({ user, params, request }) =>
        domain.servers.setImage(params.id, user, "banner", (await readMultipart(request, LIMITS.serverBannerBytes)).get("banner")),
      { auth: true, parse: "none", detail: doc("setServerBanner", Server, { multipart: v.object({ banner: FileField }) }) },
    )
    .patch("/:id/banner-offset", ({ user, params, body }) => domain.servers.setBannerOffset(params.id, user, body.banner_offset), {
      auth: true,
      body: BannerOffsetBody,
      detail: doc("setServerBannerOffset", Server),
    })
    .patch("/:id/settings", ({ user, params, body }) => domain.servers.updateSettings(params.id, user, body), {
      auth: true,
      body: SettingsBody,
      detail: doc("updateServerSettings", Server),
    })
    .post("/:id/vanity", ({ user, params, body, headers, request, server }) => domain.servers.setVanity(params.id, user, body.code, twoFactorProof({ headers, request, server })), {
      auth: true,
      body: VanityBody,
      detail: doc("setServerVanity", Server, { errors: [409, 429], headers: TWO_FACTOR_HEADER }),
    })
    .delete(
      "/:id/leave",
      async ({ user, params }) => {
        await domain.servers.leave(params.id, user);
        return { success: true };
      },
      { auth: true, detail: doc("leaveServer", Success) },
    )
    .post("/:id/mute", ({ user, params, body }) => domain.servers.mute(params.id, user, body?.duration), { auth: true, body: MuteBody, detail: doc("muteServer", ServerMute) })
    .delete("/:id/mute", ({ user, params }) => domain.servers.unmute(params.id, user), { auth: true, detail: doc("unmuteServer", ServerMute) })
    .get("/:id/gifs", ({ user, params }) => domain.serverGifs.list(params.id, user), { auth: true, detail: doc("listServerGifs", v.array(ServerGif)) })
    .post(
      "/:id/gifs",
      async ({ user, params, request, set }) => {
        const form = await readMultipart(request, LIMITS.serverGifBytes);
        const fields = parseInput(GifFields, { name: form.get("name") ?? undefined, kind: form.get("kind") ?? undefined });
        const gif = await domain.serverGifs.upload(params.id, user, { file: form.get("file"), ...fields });
        set.status = 201;
        return gif;
      },
      { auth: true, parse: "none", detail: doc("uploadServerGif", { 201: ServerGif }, { multipart: v.object({ file: FileField, ...GifFields.entries }) }) },
    )
    .delete(
      "/:id/gifs/:gifId",
      async ({ user, params }) => {
        await domain.serverGifs.remove(params.id, params.gifId, user);
        return { success: true };
      },
      { auth: true, detail: doc("deleteServerGif", Success) },
    )
    .post(
      "/:id/read",
      async ({ user, params }) => {
        const read = await domain.servers.markRead(params.id, user);
        await domain.readStates.markServer(user.id, read.server_id);
        return read;
      },
      { auth: true, detail: doc("markServerRead", ServerReadState) },
    );
