import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { unauthorized } from "../../domain/shared/errors.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { AuthPlugin } from "../auth.ts";
import { body } from "../schemas.ts";
import { ExecuteWebhook, NewWebhook, WebhookChanges } from "../../domain/messaging/webhook-schemas.ts";
import { doc, NO_CONTENT } from "../operation-doc.ts";
import { Message, Success } from "../../domain/shared/shapes.ts";
import { Webhook, WebhookMetadata } from "../responses/messaging.ts";

const CreateBody = body(NewWebhook.entries);
const UpdateBody = body(WebhookChanges.entries);
const ExecuteBody = body(ExecuteWebhook.entries);
const ExecuteQuery = v.object({ wait: v.optional(v.picklist(["true", "false"], "must be true or false")) });

/**
 * The token routes' credential is the URL: a request that also carries an Authorization header
 * is refused, so a client never mistakes a user or bot token for the webhook's. Checked after
 * the URL's id and token, so a wrong one is `Invalid webhook` with or without a header (SPEC
 * "Errors" 1).
 */
function refuseAuthorization(headers: Record<string, string | undefined>): void {
  if (headers.authorization !== undefined) {
    throw unauthorized("Webhook execute routes take no Authorization header: the URL token is the credential");
  }
}

/**
 * GET/POST /api/v1/channels/:id/webhooks. Its own plugin under the channels prefix, with
 * `:id` first like every route there (the router needs one name per position).
 */
export const channelWebhookRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/channels", tags: ["Webhooks"] })
    .use(auth)
    .get("/:id/webhooks", ({ user, params }) => domain.webhooks.list(params.id, user), { auth: true, detail: doc("listChannelWebhooks", v.array(Webhook)) })
    .post(
      "/:id/webhooks",
      async ({ user, params, body, set }) => {
        const webhook = await domain.webhooks.create(params.id, user, body);
        set.status = 201;
        return webhook;
      },
      { auth: true, body: CreateBody, detail: doc("createChannelWebhook", { 201: Webhook }) },
    );

/**
 * /api/webhooks (not versioned, SPEC "Versioning" 3): the management aliases and routes, which
 * take a user token, and the token routes (metadata, execute), which take none. Static
 * segments win over parameters: `channel/...` over `:id`, `:id/token` over `:id/:token`.
 */
export const webhookRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/webhooks", tags: ["Webhooks"] })
    .use(auth)
    .get("/channel/:channelId", ({ user, params }) => domain.webhooks.list(params.channelId, user), { auth: true, detail: doc("listWebhooks", v.array(Webhook)) })
    .post(
      "/channel/:channelId",
      async ({ user, params, body, set }) => {
        const webhook = await domain.webhooks.create(params.channelId, user, body);
        set.status = 201;
        return webhook;
      },
      { auth: true, body: CreateBody, detail: doc("createWebhook", { 201: Webhook }) },
    )
    .patch("/:id", ({ user, params, body }) => domain.webhooks.update(params.id, user, body), { auth: true, body: UpdateBody, detail: doc("updateWebhook", Webhook) })
    .delete(
      "/:id",
      async ({ user, params }) => {
        await domain.webhooks.delete(params.id, user);
        return { success: true };
      },
      { auth: true, detail: doc("deleteWebhook", Success) },
    )
    .post("/:id/token", ({ user, params }) => domain.webhooks.regenerateToken(params.id, user), { auth: true, detail: doc("regenerateWebhookToken", Webhook) })
    .get("/:id/:token", async ({ params, headers }) => {
      const webhook = await domain.webhooks.authenticate(params.id, params.token);
      refuseAuthorization(headers);
      return domain.webhooks.metadata(webhook);
    }, { detail: doc("getWebhookWithToken", WebhookMetadata, { errors: [401] }) })
    // Validated in the handler, so a wrong token is 401 before a bad body is 400.
    .post("/:id/:token", async ({ params, headers, query, body }) => {
      const webhook = await domain.webhooks.authenticate(params.id, params.token);
      refuseAuthorization(headers);
      await domain.webhooks.admit(webhook);
      const { wait } = parseInput(ExecuteQuery, query, "query");
      const message = await domain.webhooks.execute(webhook, parseInput(ExecuteBody, body));
      return wait === "true" ? message : new Response(null, { status: 204 });
    }, {
      detail: doc("executeWebhook", { 200: Message, 204: NO_CONTENT }, {
        body: ExecuteBody,
        query: ExecuteQuery,
        errors: [401, 403, 429],
        description: "`?wait=true` answers the message; otherwise 204.",
      }),
    });
