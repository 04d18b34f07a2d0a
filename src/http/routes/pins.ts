import { Elysia } from "elysia";
import type { Domain } from "../../domain/domain.ts";
import type { AuthPlugin } from "../auth.ts";
import * as v from "valibot";
import { doc } from "../operation-doc.ts";
import { Message } from "../../domain/shared/shapes.ts";
import { PinState } from "../responses/messaging.ts";

/**
 * Pins on channel messages, under /api/v1/messages. The spec's `:channelId` is named `:id`
 * here: the router needs one name per position across the /api/v1/messages plugins.
 */
export const pinRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/messages", tags: ["Pins"] })
    .use(auth)
    .get("/:id/pins", ({ user, params }) => domain.pins.list(params.id, user), { auth: true, detail: doc("listPins", v.array(Message)) })
    .post("/:id/pins/:messageId", ({ user, params }) => domain.pins.pin(params.id, params.messageId, user), { auth: true, detail: doc("pinMessage", PinState) })
    .delete("/:id/pins/:messageId", ({ user, params }) => domain.pins.unpin(params.id, params.messageId, user), { auth: true, detail: doc("unpinMessage", PinState) });
