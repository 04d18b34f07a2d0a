/**
 * Issue 47, point 5: Janus in cluster mode (docs/voice.md, "Janus"). A voice room's home node
 * talks to the room's Janus: a member relayed from another node gets their grant from the home
 * (through their voice link, under the id the home knows them by) and their token opens a Janus
 * session; leaving revokes it at the home. When the home dies, the members join again on another
 * node, which becomes the home and lets them into the same Janus room (its secret is derived from
 * JANUS_SECRET, so any node can manage it).
 *
 * Needs a Janus, so the media namespace: `npm run test:media-cluster`; skipped in
 * `npm run test:cluster`, which runs outside it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { JanusAdmin } from "../../src/media/janus-admin.ts";
import { opensSession } from "../helpers/janus-api.ts";
import { startJanus, type Janus } from "../helpers/janus.ts";
import { api, closeSockets, connect, emitAck, eventually, record, register, serverWith, startNodes, type HearthNode, type Nodes } from "./nodes.ts";

const inNamespace = Boolean(process.env.HEARTH_JANUS_IP);
let janus: Janus | null = null;
let cluster: Nodes | undefined;
afterAll(async () => {
  closeSockets();
  await cluster?.stop();
  await janus?.stop();
});

const sessionWith = (token: string) => opensSession(janus!.url, token);

describe.skipIf(!inNamespace)("voice through Janus on three nodes", () => {
  test("the room's home grants every member, relayed ones too; when the home dies the members' new home lets them into the same Janus room", async () => {
    janus = await startJanus();
    cluster = await startNodes(3, { JANUS_URL: janus.url, JANUS_ADMIN_URL: janus.adminUrl, JANUS_SECRET: janus.secret });
    const [n1, n2, n3] = cluster.nodes as [HearthNode, HearthNode, HearthNode];
    const admin = new JanusAdmin(janus.adminUrl, janus.secret);
    const [owner, bob, carol] = [await register(n1), await register(n1), await register(n1)];
    const { serverId } = await serverWith(n1, owner, [bob, carol]);
    const created = await api(n1, "POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "Lounge", type: "voice" } });
    expect(created.status).toBe(201);
    const lounge = created.body.id as string;

    // The owner's join on node 1 makes it the Lounge's home; Bob (node 2) and Carol (node 3) are relayed there.
    const a = await connect(n1, owner.token);
    const b = await connect(n2, bob.token);
    const c = await connect(n3, carol.token);
    const grants = { a: record(a, "voice:media"), b: record(b, "voice:media"), c: record(c, "voice:media") };
    const acks = [];
    for (const socket of [a, b, c]) acks.push(await emitAck(socket, "voice:join", { channelId: lounge }));
    for (const ack of acks) expect(ack).toMatchObject({ ok: true, channelId: lounge });
    await eventually(() => grants.a.length === 1 && grants.b.length === 1 && grants.c.length === 1, "a grant for each member");
    expect((await admin.videoRoom({ request: "exists", room: lounge })).exists).toBe(true);
    // Each grant names the id the home knows the member by (a relayed member's voice link).
    const known = (acks.at(-1)! as { participants: { socketId: string; userId: string }[] }).participants;
    expect(grants.b[0].id).toBe(known.find((p) => p.userId === bob.id)!.socketId);
    expect(grants.b[0].id).not.toBe(b.id);
    for (const grant of [grants.a[0], grants.b[0], grants.c[0]]) {
      expect(grant).toMatchObject({ channelId: lounge, server: "janus", url: janus.url, room: lounge });
      expect(await sessionWith(grant.token)).toBe(true);
    }

    // Carol leaves through her node: the home revokes her token.
    expect(await emitAck(c, "voice:leave")).toMatchObject({ ok: true });
    await eventually(async () => !(await sessionWith(grants.c[0].token)), "Carol's token revoked");

    // The home dies: Bob is told, joins again on node 2 (the new home), and gets a grant Janus takes.
    const errors = record(b, "voice:error");
    await n1.kill("SIGKILL");
    await eventually(() => errors.length >= 1, "voice:error at Bob", 5000);
    expect(await emitAck(b, "voice:join", { channelId: lounge })).toMatchObject({ ok: true, channelId: lounge });
    await eventually(() => grants.b.length === 2, "Bob's grant from the new home");
    expect(grants.b[1]).toMatchObject({ channelId: lounge, url: janus.url, room: lounge, id: b.id });
    expect(await sessionWith(grants.b[1].token)).toBe(true);
    // The new home leaves the room with its last person.
    expect(await emitAck(b, "voice:leave")).toMatchObject({ ok: true });
    await eventually(async () => (await admin.videoRoom({ request: "exists", room: lounge })).exists === false, "the Janus room destroyed by the new home");
  });
});
