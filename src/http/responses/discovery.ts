/** Answers of the public discovery routes (docs/discovery.md). */
import * as v from "valibot";
import { PERMISSIONS } from "../../domain/access/permission-bits.ts";
import { SPEC_LIMITS } from "../../domain/shared/limits.ts";
import { PRESENCE_STATUSES } from "../../domain/shared/shapes.ts";
import { EVENT_KINDS, type EventKind } from "../../gateway/event-limits.ts";

const link = v.string();
const RateLimit = v.object({ per_second: v.number(), burst: v.number() });
export const Discovery = v.object({
  name: v.string(),
  version: v.string(),
  api_version: v.string(),
  gateway: v.object({ url: v.string(), path: v.string(), protocol: v.literal("socket.io"), protocol_version: v.number() }),
  links: v.object({ self: link, platform_config: link, stats: link, register: link, login: link, me: link, openapi: link, asyncapi: link, docs: link }),
});
export const PlatformConfig = v.object({
  api_version: v.string(),
  features: v.object({ registration_open: v.boolean(), two_factor: v.boolean(), two_factor_required_for_applications: v.boolean() }),
  /** The spec's limits, by name. */
  limits: v.object(Object.fromEntries(Object.keys(SPEC_LIMITS).map((name) => [name, v.number()])) as Record<keyof typeof SPEC_LIMITS, v.NumberSchema<undefined>>),
  presence_statuses: v.array(v.picklist(PRESENCE_STATUSES)),
  /** Servers with more members than this are large: presence by subscription, member lists by page. */
  large_server_members: v.number(),
  /** The gateway's client event limits per socket, by event kind (docs/gateway.md, "Limits"): clients pace themselves by them. */
  gateway_limits: v.object({
    kinds: v.object(Object.fromEntries(EVENT_KINDS.map((kind) => [kind, RateLimit])) as Record<EventKind, typeof RateLimit>),
    user_factor: v.number(),
  }),
  /** The REST rate limits' buckets, by their `X-RateLimit-Bucket` name (docs/operations.md, "Rate limits"): clients queue their calls by them. */
  rest_limits: v.record(
    v.string(),
    v.object({ requests: v.number(), window_seconds: v.number(), per: v.picklist(["caller", "caller_and_channel"]), counted_in: v.nullable(v.string()) }),
  ),
  /** The permission bits, by name. */
  permissions: v.object(Object.fromEntries(Object.keys(PERMISSIONS).map((name) => [name, v.number()])) as Record<keyof typeof PERMISSIONS, v.NumberSchema<undefined>>),
  default_permissions: v.object({ everyone: v.number(), bot: v.number() }),
});
export const PlatformStats = v.object({ users: v.number(), bots: v.number(), servers: v.number(), messages: v.number() });
