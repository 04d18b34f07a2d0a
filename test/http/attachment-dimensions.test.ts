import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, community, createServer, joinChannel } from "../helpers/community.ts";
import { addBot } from "../helpers/bots.ts";
import { gifDeclaring, jpegDeclaring, NOT_AN_IMAGE, pngDeclaring, webpDeclaring, webpLosslessDeclaring, webpLossyDeclaring } from "../helpers/images.ts";
import { expectError, startServer, waitForEvent, type TestServer, type TestUser } from "../helpers/server.ts";

// Image attachments carry `width` and `height` from their header (docs/messages.md, "Objects"),
// in every message shape that has attachments; null for other files.
let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const ATTACHMENT_KEYS = ["filename", "height", "id", "mime_type", "original_name", "size", "width"];
const PDF = new TextEncoder().encode("%PDF-1.7\n%...");

function form(files: { bytes: Uint8Array; name: string }[]): FormData {
  const data = new FormData();
  for (const f of files) data.append("files", new File([f.bytes], f.name));
  return data;
}
const upload = (channelId: string, user: TestUser | null, data: FormData) =>
  server.api("POST", `/api/v1/messages/${channelId}/upload`, { token: user?.token ?? null, raw: data });
const dims = (attachments: { width: number | null; height: number | null }[]) => attachments.map((a) => [a.width, a.height]);

const FILES = [
  { bytes: pngDeclaring(640, 480), name: "a.png" },
  { bytes: jpegDeclaring(1920, 1080), name: "b.jpg" },
  { bytes: gifDeclaring(32, 16), name: "c.gif" },
  { bytes: webpDeclaring(3000, 2000), name: "d.webp" },
  { bytes: webpLosslessDeclaring(300, 200), name: "e.webp" },
  { bytes: webpLossyDeclaring(100, 50), name: "f.webp" },
  { bytes: PDF, name: "notes.pdf" },
  { bytes: new TextEncoder().encode("hello\n"), name: "notes.txt" },
  { bytes: NOT_AN_IMAGE, name: "x.svg" },
];
const EXPECTED = [[640, 480], [1920, 1080], [32, 16], [3000, 2000], [300, 200], [100, 50], [null, null], [null, null], [null, null]];

describe("channel uploads", () => {
  test("every image carries its header's width and height, every other file null, in the upload's answer, message:new and every read", async () => {
    const { owner, member, channelId, serverId } = await community(server);
    const socket = await joinChannel(server, owner, channelId);
    const heard = waitForEvent(socket, "message:new");
    const res = await upload(channelId, member, form(FILES));
    expect(res.status).toBe(201);
    for (const a of res.body.attachments) expect(Object.keys(a).sort()).toEqual(ATTACHMENT_KEYS);
    expect(dims(res.body.attachments)).toEqual(EXPECTED);
    expect(res.body.attachments[0]).toMatchObject({ original_name: "a.png", mime_type: "image/png", width: 640, height: 480 });
    expect((await heard).attachments).toEqual(res.body.attachments);
    socket.close();

    // The page, the single message, the attachment's info, Bot REST's page.
    const page = await server.api("GET", `/api/v1/messages/${channelId}`, { token: owner.token });
    expect(page.body[0].attachments).toEqual(res.body.attachments);
    expect((await server.api("GET", `/api/v1/messages/id/${res.body.id}`, { token: owner.token })).body.attachments).toEqual(res.body.attachments);
    const info = await server.api("GET", `/api/v1/messages/attachment/${res.body.attachments[1].id}`, { token: owner.token });
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ width: 1920, height: 1080, mime_type: "image/jpeg" });
    const pdfInfo = await server.api("GET", `/api/v1/messages/attachment/${res.body.attachments[6].id}`, { token: owner.token });
    expect(pdfInfo.body).toMatchObject({ width: null, height: null, mime_type: "application/pdf" });
    const bot = await addBot(server, owner, serverId);
    const botPage = await server.api("GET", `/api/v1/oauth2/bot/channels/${channelId}/messages`, { token: bot.token });
    expect(botPage.status).toBe(200);
    expect(botPage.body[0].attachments).toEqual(res.body.attachments);

    // An edit answers and announces the same dimensions.
    const edited = await server.api("PUT", `/api/v1/messages/${res.body.id}`, { token: member.token, body: { content: "edited" } });
    expect(edited.body.attachments).toEqual(res.body.attachments);
  });

  test("the refusals stay as they were: a corrupt header and too many pixels are 400, nothing stored; 401, 403", async () => {
    const { member, outsider, channelId } = await community(server);
    expectError(await upload(channelId, member, form([{ bytes: pngDeclaring(9000, 10), name: "big.png" }])), 400, /too large: 9000x10 pixels/);
    expectError(await upload(channelId, member, form([{ bytes: pngDeclaring(10, 10).slice(0, 20), name: "cut.png" }])), 400, /not a valid PNG/);
    expect((await upload(channelId, null, form(FILES.slice(0, 1)))).status).toBe(401);
    expect((await upload(channelId, outsider, form(FILES.slice(0, 1)))).status).toBe(403);
    const page = await server.api("GET", `/api/v1/messages/${channelId}`, { token: member.token });
    expect(page.body).toEqual([]);
  });
});

describe("DM and group DM uploads", () => {
  test("a 1:1 DM's attachments carry width and height (dm:new and the page the same)", async () => {
    const a = await server.register();
    const b = await server.register();
    const serverId = await createServer(server, a);
    await addMember(server, serverId, b);
    const socket = await server.connect(b.token);
    const heard = waitForEvent(socket, "dm:new");
    const res = await server.api("POST", `/api/v1/dm/${b.id}/upload`, { token: a.token, raw: form([FILES[0]!, FILES[6]!]) });
    expect(res.status).toBe(201);
    for (const x of res.body.attachments) expect(Object.keys(x).sort()).toEqual(ATTACHMENT_KEYS);
    expect(dims(res.body.attachments)).toEqual([[640, 480], [null, null]]);
    expect((await heard).attachments).toEqual(res.body.attachments);
    socket.close();
    const page = await server.api("GET", `/api/v1/dm/${a.id}/messages`, { token: b.token });
    expect(page.body[0].attachments).toEqual(res.body.attachments);

    const c = await server.register();
    await addMember(server, serverId, c);
    const group = await server.api("POST", "/api/v1/dm/groups", { token: a.token, body: { member_ids: [b.id, c.id] } });
    const sent = await server.api("POST", `/api/v1/dm/groups/${group.body.id}/upload`, { token: c.token, raw: form([FILES[1]!]) });
    expect(sent.status).toBe(201);
    expect(dims(sent.body.attachments)).toEqual([[1920, 1080]]);
    const groupPage = await server.api("GET", `/api/v1/dm/groups/${group.body.id}/messages`, { token: a.token });
    expect(dims(groupPage.body[0].attachments)).toEqual([[1920, 1080]]);
  });
});
