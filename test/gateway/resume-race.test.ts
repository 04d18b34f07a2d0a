import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket as ClientSocket } from "socket.io-client";
import { community } from "../helpers/community.ts";
import { connectResumable, drop, reconnect, recordArgs } from "../helpers/resume.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { until } from "../helpers/wait.ts";
import { raisedRestRateLimits } from "../helpers/rate-limits.ts";

/**
 * Session resume while events keep coming (docs/gateway.md, "Resume"): an event published
 * while a session is being restored (after the adapter read what the socket missed, before the
 * socket is live again) is neither lost nor delivered twice. A publisher keeps several messages
 * in flight the whole time while one client drops and resumes again and again; at the end every
 * message the API acknowledged has reached the client exactly once, in the order of its offsets.
 * The gap is widest on PostgreSQL (`npm run test:postgres`), where each room check is a round
 * trip: before the catch-up (src/gateway/resume-catch-up.ts) nearly every round lost messages
 * there; on SQLite the checks take no I/O and the window was a few microtasks.
 */

let server: TestServer;
const clients: ClientSocket[] = [];
beforeAll(async () => {
  // The posters send into one channel in a loop while clients resume: the REST sends limits are raised.
  server = await startServer(raisedRestRateLimits("sends"));
});
afterAll(async () => {
  for (const socket of clients) socket.close();
  await server.stop();
});

const ROUNDS = 40;
const IN_FLIGHT = 4;

describe("session resume under a steady stream of events", () => {
  for (const transport of ["websocket", "polling"] as const) {
    test(`${transport}: every message published around ${ROUNDS} resumes is received exactly once, in order`, async () => {
      const { owner, member, channelId } = await community(server);
      const socket = await connectResumable(server.url, member.token, [transport]);
      clients.push(socket);
      expect((await socket.emitWithAck("channel:join", channelId)).ok).toBe(true);
      const seen = recordArgs(socket);

      // The publisher: IN_FLIGHT posters, each posting as soon as its last post was answered.
      const acknowledged: string[] = [];
      let publishing = true;
      let sent = 0;
      const poster = async () => {
        while (publishing) {
          const n = sent++;
          const res = await server.api("POST", `/api/v1/messages/${channelId}`, { token: owner.token, body: { content: `m${n}` } });
          expect(res.status).toBe(201);
          acknowledged.push((res.body as { id: string }).id);
        }
      };
      const posters = Array.from({ length: IN_FLIGHT }, poster);

      let resumed = 0;
      for (let round = 0; round < ROUNDS; round++) {
        await until(() => acknowledged.length > round * 3, "the publisher to go on");
        await drop(socket);
        await reconnect(socket);
        if (socket.recovered) resumed++;
      }
      publishing = false;
      await Promise.all(posters);
      // Every resume worked (the client knew it: socket.recovered); otherwise the check below would not be about resume.
      expect(resumed).toBe(ROUNDS);

      const messageIds = () => seen.filter(([event]) => event === "message:new").map(([, args]) => (args[0] as { id: string }).id);
      await until(() => new Set(messageIds()).size >= acknowledged.length, "every acknowledged message", 10_000).catch(() => {});
      const received = seen.filter(([event]) => event === "message:new");
      const ids = received.map(([, args]) => (args[0] as { id: string }).id);
      const lost = acknowledged.filter((id) => !ids.includes(id));
      const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
      expect({ lost, twice }).toEqual({ lost: [], twice: [] });
      expect(ids.length).toBe(acknowledged.length);
      // In order: the offsets (each event's last argument) only go up.
      const offsets = received.map(([, args]) => Number(args.at(-1)));
      const backwards = offsets.filter((offset, i) => i > 0 && !(offset > offsets[i - 1]!));
      expect(backwards).toEqual([]);
    }, 60_000);
  }
});
