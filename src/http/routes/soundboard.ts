import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { AuthPlugin } from "../auth.ts";
import { readMultipart } from "../multipart.ts";
import { body } from "../schemas.ts";
import { doc } from "../operation-doc.ts";
import { FileField } from "../../reference/json-schema.ts";
import { Success } from "../../domain/shared/shapes.ts";
import { CatalogSound, Sound, SoundPlayed } from "../responses/voice.ts";

/** The upload form: the `sound` file, and `name`/`icon` as text. */
const SoundForm = v.object({ sound: FileField, name: v.optional(v.string()), icon: v.optional(v.string()) });

/** A text form field; a blank one (an empty form input) counts as absent. Files stay files (400 later). */
const field = (value: string | File | null): unknown =>
  value === null || (typeof value === "string" && value.trim() === "") ? undefined : value;

/** `{name?, icon?}` as JSON; the domain checks the values. */
const UpdateJson = body({
  name: v.optional(v.string("must be a string")),
  icon: v.optional(v.string("must be a string")),
});

const PlayBody = body({ sound_id: v.string("must be a string") });

const isMultipart = (request: Request) => (request.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");

/**
 * Server soundboards under /api/v1/servers: `:id` is the server, `:soundId` the third segment.
 * Uploads are multipart and refused from `content-length` past 8 MB before a byte is read.
 */
export const soundboardRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/servers", tags: ["Soundboard"] })
    .use(auth)
    .get("/:id/soundboard", ({ user, params }) => domain.soundboard.list(params.id, user), { auth: true, detail: doc("listSounds", v.array(Sound)) })
    .post(
      "/:id/soundboard",
      async ({ user, params, request, set }) => {
        const form = await readMultipart(request, LIMITS.soundboardBytes);
        const sound = await domain.soundboard.upload(params.id, user, {
          file: form.get("sound"),
          name: field(form.get("name")),
          icon: field(form.get("icon")),
        });
        set.status = 201;
        return sound;
      },
      { auth: true, parse: "none", detail: doc("uploadSound", { 201: Sound }, { multipart: SoundForm }) },
    )
    // JSON `{name?, icon?}`, or multipart with an optional `sound` plus name/icon. The app's
    // parse hook leaves a multipart body unread, so it is read here within the cap.
    .patch(
      "/:id/soundboard/:soundId",
      async ({ user, params, request, body: raw }) => {
        if (isMultipart(request)) {
          const form = await readMultipart(request, LIMITS.soundboardBytes);
          // A browser sends an empty, nameless file part for a file input left empty.
          const sound = form.get("sound");
          const noFile = sound === null || (sound instanceof File && sound.size === 0 && sound.name === "");
          return domain.soundboard.update(params.id, params.soundId, user, {
            file: noFile ? undefined : sound,
            name: field(form.get("name")),
            icon: field(form.get("icon")),
          });
        }
        const json = parseInput(UpdateJson, raw);
        return domain.soundboard.update(params.id, params.soundId, user, { name: json.name, icon: json.icon });
      },
      {
        auth: true,
        detail: doc("updateSound", Sound, {
          body: UpdateJson,
          multipart: v.partial(SoundForm),
          description: "JSON `{name?, icon?}`, or a multipart form that may also replace the `sound`.",
        }),
      },
    )
    .delete(
      "/:id/soundboard/:soundId",
      async ({ user, params }) => {
        await domain.soundboard.remove(params.id, params.soundId, user);
        return { success: true };
      },
      { auth: true, detail: doc("deleteSound", Success) },
    );

/** Premium soundboard features under /api/v1/premium (docs/soundboard.md). */
export const premiumSoundboardRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/premium", tags: ["Soundboard"] })
    .use(auth)
    .get("/soundboard/catalog", ({ user }) => domain.soundboard.catalog(user), { auth: true, detail: doc("getSoundboardCatalog", v.array(CatalogSound)) })
    .post(
      "/soundboard/play",
      ({ user, body: raw }) => domain.soundboard.play(user, parseInput(PlayBody, raw).sound_id),
      { auth: true, detail: doc("playSound", SoundPlayed, { body: PlayBody, errors: [404, 429] }) },
    );
