import { Elysia } from "elysia";
import type { AuthPlugin } from "../auth.ts";
import { doc } from "../operation-doc.ts";
import { iceServersFor, type IceSettings } from "../../domain/voice/ice-servers.ts";
import { IceServers } from "../responses/voice.ts";

/** /api/v1/voice: what a client needs for voice besides the gateway (docs/voice.md, "ICE servers"). */
export const voiceRoutes = (ice: IceSettings, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/voice", tags: ["Voice"] })
    .use(auth)
    .get("/ice-servers", ({ user, set }) => {
      // A fresh credential each time: never kept by a cache between the caller and Hearth.
      set.headers["cache-control"] = "no-store";
      return iceServersFor(ice, user.id);
    }, {
      auth: true,
      detail: doc("getIceServers", IceServers, {
        description:
          "The STUN and TURN servers for WebRTC peer connections, TURN with a credential of the TURN REST API form (username `<expiry>:<user id>`, credential base64 HMAC-SHA1 with the host's TURN secret) good for `ttl` seconds; an empty list when none are configured.",
      }),
    });
