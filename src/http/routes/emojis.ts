import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { EMOJI_NAME, EMOJI_NAME_MESSAGE } from "../../domain/community/emojis.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { AuthPlugin } from "../auth.ts";
import { readMultipart } from "../multipart.ts";
import { body } from "../schemas.ts";
import { doc, REDIRECT } from "../operation-doc.ts";
import { FileField } from "../../reference/json-schema.ts";
import { Success } from "../../domain/shared/shapes.ts";
import { Emoji, EmojiEnvelope, OwnEmoji, ServerEmojis } from "../responses/community.ts";

const emojiName = v.pipe(v.string("must be text"), v.trim(), v.regex(EMOJI_NAME, EMOJI_NAME_MESSAGE));

const UploadFields = v.object({ name: v.optional(emojiName) });

/** A blank `name` field (an empty form input) means "use the file name". */
const nameField = (value: string | File | null) => (value === null || (typeof value === "string" && value.trim() === "") ? undefined : value);
const RenameBody = body({ name: emojiName });

/**
 * Custom emojis under /api/v1/servers. `/my-emojis` is a static segment where the other routes
 * have `:id` (static wins in Elysia's router); `:emojiId` is the third segment.
 */
export const emojiRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/servers", tags: ["Emojis"] })
    .use(auth)
    .get("/my-emojis", ({ user }) => domain.emojis.listMine(user), { auth: true, detail: doc("listMyEmojis", v.array(OwnEmoji)) })
    .get("/:id/emojis", ({ user, params }) => domain.emojis.list(params.id, user), { auth: true, detail: doc("listServerEmojis", ServerEmojis) })
    .get("/:id/emojis/public", ({ params }) => domain.emojis.listPublic(params.id), { auth: true, detail: doc("listPublicEmojis", v.array(Emoji)) })
    .post(
      "/:id/emojis",
      async ({ user, params, request, set }) => {
        const form = await readMultipart(request, LIMITS.emojiBytes);
        const fields = parseInput(UploadFields, { name: nameField(form.get("name")) });
        const emoji = await domain.emojis.upload(params.id, user, { file: form.get("emoji"), name: fields.name });
        set.status = 201;
        return { emoji };
      },
      { auth: true, parse: "none", detail: doc("uploadEmoji", { 201: EmojiEnvelope }, { multipart: v.object({ emoji: FileField, ...UploadFields.entries }) }) },
    )
    .patch(
      "/:id/emojis/:emojiId",
      async ({ user, params, body }) => ({ emoji: await domain.emojis.rename(params.id, params.emojiId, user, body.name) }),
      { auth: true, body: RenameBody, detail: doc("renameEmoji", EmojiEnvelope) },
    )
    .delete(
      "/:id/emojis/:emojiId",
      async ({ user, params }) => {
        await domain.emojis.remove(params.id, params.emojiId, user);
        return { success: true };
      },
      { auth: true, detail: doc("deleteEmoji", Success) },
    );

/** GET /api/v1/emojis/:id/file: public (no token), a 302 to the stored image under /uploads. */
export const emojiFileRoutes = (domain: Domain) =>
  new Elysia({ tags: ["Emojis"] }).get(
    "/api/v1/emojis/:id/file",
    async ({ params }) =>
      new Response(null, { status: 302, headers: { location: await domain.emojis.filePath(params.id), "cache-control": "no-cache" } }),
    { detail: doc("getEmojiFile", { 302: REDIRECT }) },
  );
