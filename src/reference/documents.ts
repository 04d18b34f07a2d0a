/**
 * The two reference documents of one app, built on first request from its registered routes and
 * the event tables, then kept (they cannot change while it runs).
 */
import * as shapes from "../domain/shared/shapes.ts";
import { Interaction } from "../domain/shared/events.ts";
import * as accounts from "../http/responses/accounts.ts";
import * as admin from "../http/responses/admin.ts";
import * as ai from "../http/responses/ai.ts";
import * as bots from "../http/responses/bots.ts";
import * as community from "../http/responses/community.ts";
import * as discovery from "../http/responses/discovery.ts";
import * as messaging from "../http/responses/messaging.ts";
import * as voice from "../http/responses/voice.ts";
import { buildAsyncApiDocument } from "./asyncapi.ts";
import { namedSchemas, type SchemaObject } from "./json-schema.ts";
import { buildOpenApiDocument, type RegisteredRoute } from "./openapi.ts";

/** The schemas the documents name (`#/components/schemas/<export name>`). */
export const NAMED_SCHEMAS = namedSchemas(shapes, { Interaction }, accounts, admin, ai, bots, community, discovery, messaging, voice);

export interface ReferenceDocuments {
  openapi(): SchemaObject;
  asyncapi(): SchemaObject;
}

export function referenceDocuments(routes: () => readonly RegisteredRoute[]): ReferenceDocuments {
  let openapi: SchemaObject | null = null;
  let asyncapi: SchemaObject | null = null;
  return {
    openapi: () => (openapi ??= buildOpenApiDocument(routes(), { named: NAMED_SCHEMAS })),
    asyncapi: () => (asyncapi ??= buildAsyncApiDocument({ named: NAMED_SCHEMAS })),
  };
}
