import { Elysia, type AnyElysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { requireHuman } from "../../domain/ai/access.ts";
import type { AiTurn } from "../../domain/ai/assistant.ts";
import { notFound } from "../../domain/shared/errors.ts";
import { SERVED_TYPES } from "../../domain/shared/uploads.ts";
import { parseInput } from "../../domain/shared/validation.ts";
import type { AuthPlugin } from "../auth.ts";
import { readMultipart } from "../multipart.ts";
import { body, queryLimit } from "../schemas.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { ConversationFields, idText, NewTurn } from "../../domain/ai/schemas.ts";
import { doc, EVENT_STREAM, FILE } from "../operation-doc.ts";
import { FileField } from "../../reference/json-schema.ts";
import { Success } from "../../domain/shared/shapes.ts";
import { AiConfig, AiConversation, AiMessage, AiUpload } from "../responses/ai.ts";

const { ai } = LIMITS;
/** SSE comment lines keep proxies and Bun's idle timer from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

const ConversationBody = body(ConversationFields.entries);
const TurnBody = body(NewTurn.entries);
const CancelBody = body({ stream_id: idText });
const HistoryQuery = v.object({
  before: v.optional(v.pipe(v.string(), v.uuid("must be a message id"))),
  limit: queryLimit(ai.historyMax),
});

/** The unversioned mount's operations are named apart (`getAiConfigUnversioned`). */
const op = (prefix: string, name: string) => (prefix === "/api/v1/ai" ? name : `${name}Unversioned`);

/** The turn's events as server-sent events; the reader going away cancels the turn (its partial reply is kept). */
function eventStream(turn: AiTurn): Response {
  const encoder = new TextEncoder();
  const events = turn.events[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      heartbeat = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch {
          clearInterval(heartbeat);
        }
      }, HEARTBEAT_MS);
    },
    async pull(controller) {
      const next = await events.next();
      if (next.done) {
        clearInterval(heartbeat);
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(`event: ${next.value.event}\ndata: ${JSON.stringify(next.value.data)}\n\n`));
    },
    cancel() {
      clearInterval(heartbeat);
      turn.cancel();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      "x-stream-id": turn.streamId,
    },
  });
}

/**
 * The AI assistant for users (docs/ai.md), mounted under /api/v1/ai and /api/ai. Every route
 * needs a user token: bots are refused with 403 before the body is looked at.
 */
// Typed loosely: the app's route chain would otherwise grow past what TypeScript can represent.
export const aiRoutes = (domain: Domain, auth: AuthPlugin, prefix: "/api/v1/ai" | "/api/ai"): AnyElysia =>
  new Elysia({ prefix, tags: ["AI"] })
    .use(auth)
    .get(
      "/config",
      ({ user }) => {
        requireHuman(user);
        return domain.ai.assistant.config(user);
      },
      { auth: true, detail: doc(op(prefix, "getAiConfig"), AiConfig) },
    )
    .get(
      "/conversations",
      ({ user }) => {
        requireHuman(user);
        return domain.ai.conversations.list(user);
      },
      { auth: true, detail: doc(op(prefix, "listAiConversations"), v.array(AiConversation)) },
    )
    .post(
      "/conversations",
      async ({ user, body: raw, set }) => {
        requireHuman(user);
        const conversation = await domain.ai.conversations.create(user, parseInput(ConversationBody, raw));
        set.status = 201;
        return conversation;
      },
      { auth: true, detail: doc(op(prefix, "createAiConversation"), { 201: AiConversation }, { body: ConversationBody }) },
    )
    .patch(
      "/conversations/:id",
      ({ user, params, body: raw }) => {
        requireHuman(user);
        return domain.ai.conversations.update(user, params.id, parseInput(ConversationBody, raw));
      },
      { auth: true, detail: doc(op(prefix, "updateAiConversation"), AiConversation, { body: ConversationBody }) },
    )
    .delete(
      "/conversations/:id",
      async ({ user, params }) => {
        requireHuman(user);
        await domain.ai.conversations.remove(user, params.id);
        return { success: true };
      },
      { auth: true, detail: doc(op(prefix, "deleteAiConversation"), Success) },
    )
    .get(
      "/conversations/:id/messages",
      ({ user, params, query }) => {
        requireHuman(user);
        const q = parseInput(HistoryQuery, query, "query");
        return domain.ai.conversations.history(user, params.id, q.before ?? null, q.limit ?? ai.historyDefault);
      },
      { auth: true, detail: doc(op(prefix, "listAiMessages"), v.array(AiMessage), { query: HistoryQuery }) },
    )
    .post(
      "/uploads",
      async ({ user, request, set }) => {
        requireHuman(user);
        const limit = await domain.ai.assistant.uploadLimit(user);
        const form = await readMultipart(request, limit);
        const upload = await domain.ai.assistant.upload(user, form.get("file"), limit);
        set.status = 201;
        return upload;
      },
      { auth: true, parse: "none", detail: doc(op(prefix, "uploadAiFile"), { 201: AiUpload }, { multipart: v.object({ file: FileField }), errors: [429] }) },
    )
    .post(
      "/chat",
      async ({ user, body: raw }) => {
        requireHuman(user);
        return eventStream(await domain.ai.assistant.startTurn(user, parseInput(TurnBody, raw)));
      },
      {
        auth: true,
        detail: doc(op(prefix, "startAiChat"), { 200: EVENT_STREAM }, {
          body: TurnBody,
          errors: [404, 409, 429],
          description: "Server-sent events `start`, `delta`, `image`, `done` or `error` (docs/ai.md); the `X-Stream-Id` header names the stream for `/chat/cancel`.",
        }),
      },
    )
    .post(
      "/chat/cancel",
      async ({ user, body: raw }) => {
        requireHuman(user);
        await domain.ai.assistant.cancel(user, parseInput(CancelBody, raw).stream_id);
        return { success: true };
      },
      { auth: true, detail: doc(op(prefix, "cancelAiChat"), Success, { body: CancelBody, errors: [404] }) },
    );

/** The AI files, `/uploads/ai/<user id>/<name>`: only their owner's token reads them. */
export const aiFileRoutes = (domain: Domain, auth: AuthPlugin): AnyElysia =>
  new Elysia({ tags: ["Files"] }).use(auth).get(
    "/uploads/ai/:userId/:name",
    async ({ user, params }) => {
      requireHuman(user);
      const file = user.id === params.userId ? await domain.ai.uploads.open(params.userId, params.name) : null;
      if (!file) throw notFound("File");
      const type = SERVED_TYPES[params.name.slice(params.name.lastIndexOf(".") + 1)];
      const headers: Record<string, string> = {
        "content-type": type ?? "application/octet-stream",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
        "cache-control": "private, max-age=31536000, immutable",
      };
      if (!type) headers["content-disposition"] = "attachment";
      return new Response(file, { headers });
    },
    { auth: true, detail: doc("getAiFile", { 200: FILE }) },
  );
