/** The payloads that create, change and execute webhooks: the REST routes parse with these, and Webhooks takes their output. */
import * as v from "valibot";
import { LIMITS } from "../shared/limits.ts";
import { displayName } from "../shared/validation.ts";
import { messageContent } from "./message-schemas.ts";
import { nonceEntries } from "./nonce.ts";

const { nameLength, avatarUrlLength } = LIMITS.webhook;

const name = v.pipe(
  displayName,
  v.minLength(1, `must be 1-${nameLength} characters`),
  v.maxLength(nameLength, `must be 1-${nameLength} characters`),
);
const httpUrl = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.maxLength(avatarUrlLength, `must be at most ${avatarUrlLength} characters`),
  v.regex(/^https?:\/\/\S+$/i, "must be an http(s) URL"),
  v.url("must be an http(s) URL"),
);
/** `null` reads as "not given", as Discord clients send it. */
const nullish = <S extends v.GenericSchema>(schema: S) =>
  v.pipe(
    v.nullish(schema),
    v.transform((value) => value ?? undefined),
  );

export const NewWebhook = v.object({ name, avatar: v.optional(v.nullable(httpUrl)) });
export type NewWebhookInput = v.InferOutput<typeof NewWebhook>;

export const WebhookChanges = v.object({ name: v.optional(name), avatar: v.optional(v.nullable(httpUrl)) });
export type WebhookChangesInput = v.InferOutput<typeof WebhookChanges>;

/** Discord-style: embeds are normalized leniently by the shared send path, which checks them as for every sender. */
export const ExecuteWebhook = v.object({
  content: nullish(messageContent),
  // A list, each item read leniently by the send path (which names what is wrong in it).
  embeds: nullish(v.array(v.unknown(), "must be an array")),
  username: nullish(name),
  avatar_url: nullish(httpUrl),
  ...nonceEntries,
});
export type ExecuteWebhookInput = v.InferOutput<typeof ExecuteWebhook>;
