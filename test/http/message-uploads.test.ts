import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { community } from "../helpers/community.ts";
import { GIF_1X1, NOT_AN_IMAGE, PNG_1X1 } from "../helpers/images.ts";
import { startServer, waitForEvent, type TestServer, type TestUser, expectError } from "../helpers/server.ts";
import { PERMISSIONS as P } from "../../src/domain/access/permission-bits.ts";
import { fileTypeOf, sanitizeFileName } from "../../src/domain/messaging/attachments.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const MB = 1024 * 1024;
const MESSAGE_KEYS = ["attachments", "avatar", "channel_id", "content", "created_at", "embeds", "id", "is_bot", "reply_to", "updated_at", "user_id", "username"];
const ATTACHMENT_KEYS = ["filename", "height", "id", "mime_type", "original_name", "size", "width"];
const INFO_KEYS = ["channel_id", "filename", "height", "id", "message_id", "mime_type", "original_name", "size", "url", "width"];
const UNKNOWN = "01a20805-7d72-77cc-b541-8c28e661b52b";
const TEXT = new TextEncoder().encode("meeting notes\n");
const PDF = new TextEncoder().encode("%PDF-1.7\n%...");
const stored = (ext: string) => new RegExp(`^/uploads/attachments/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.${ext}$`);

type FileSpec = { bytes: Uint8Array; name: string; type?: string };

function uploadForm(files: FileSpec[], fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const f of files) form.append("files", new File([f.bytes], f.name, { type: f.type ?? "" }));
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  return form;
}

const upload = (target: TestServer, channelId: string, user: TestUser | null, form: FormData | string, headers: Record<string, string> = {}) =>
  target.api("POST", `/api/v1/messages/${channelId}/upload`, { token: user?.token ?? null, raw: form, headers });
const gif = (channelId: string, user: TestUser | null, body: unknown) =>
  server.api("POST", `/api/v1/messages/${channelId}/gif`, { token: user?.token ?? null, body });
const attachmentInfo = (id: string, user: TestUser | null) => server.api("GET", `/api/v1/messages/attachment/${id}`, { token: user?.token ?? null });

const filesIn = (target: TestServer) => {
  const dir = join(target.dataDir, "uploads", "attachments");
  return existsSync(dir) ? readdirSync(dir).sort() : [];
};
const onDisk = (target: TestServer, urlPath: string) => existsSync(join(target.dataDir, ...urlPath.split("/").filter(Boolean)));

const override = (owner: TestUser, channelId: string, roleId: string, allow: number, deny: number) =>
  server.api("PUT", `/api/v1/channels/${channelId}/permissions/${roleId}`, { token: owner.token, body: { allow, deny } });


/**
 * Sends only the headers and a few bytes of a multipart POST whose content-length claims
 * `claimed` bytes: the answer must come from the claim, without the body.
 */
function claimOnly(target: TestServer, path: string, token: string, claimed: number): Promise<{ status: number; body: string }> {
  const { port } = new URL(target.url);
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(Number(port), "127.0.0.1", () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
          `Content-Type: multipart/form-data; boundary=x\r\nContent-Length: ${claimed}\r\n\r\n--x\r\n`,
      );
    });
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      data += chunk;
      const end = data.indexOf("\r\n\r\n");
      const length = Number(data.match(/content-length: (\d+)/i)?.[1] ?? NaN);
      if (end >= 0 && data.length >= end + 4 + length) {
        socket.destroy();
        resolve({ status: Number(data.match(/^HTTP\/1\.1 (\d{3})/)?.[1]), body: data.slice(end + 4) });
      }
    });
    socket.on("error", reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from the content-length claim: ${data}`));
    }, 3000);
  });
}

describe("POST /api/v1/messages/:channelId/upload", () => {
  test("201 with the message and its attachments; message:new; files served back", async () => {
    const { owner, member, channelId } = await community(server);
    const socket = await server.connect(owner.token);
    expect(await socket.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
    const received = waitForEvent(socket, "message:new");
    const res = await upload(server, channelId, member, uploadForm(
      [
        { bytes: PNG_1X1, name: "holiday.png", type: "image/png" },
        { bytes: TEXT, name: "notes.txt", type: "text/plain" },
        { bytes: PDF, name: "report.pdf" },
      ],
      { content: "look at these" },
    ));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(MESSAGE_KEYS);
    expect(res.body).toMatchObject({ channel_id: channelId, user_id: member.id, content: "look at these", reply_to: null, embeds: [] });
    const [png, txt, pdf] = res.body.attachments;
    for (const a of res.body.attachments) expect(Object.keys(a).sort()).toEqual(ATTACHMENT_KEYS);
    expect(png).toMatchObject({ original_name: "holiday.png", mime_type: "image/png", size: PNG_1X1.byteLength });
    expect(png.filename).toMatch(stored("png"));
    expect(txt).toMatchObject({ original_name: "notes.txt", mime_type: "application/octet-stream", size: TEXT.byteLength });
    expect(txt.filename).toMatch(stored("txt"));
    expect(pdf).toMatchObject({ original_name: "report.pdf", mime_type: "application/pdf" });
    expect(await received).toEqual(res.body);
    socket.close();

    // Images inline, everything else as a download; bytes exact.
    const image = await fetch(server.url + png.filename);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("content-disposition")).toBeNull();
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG_1X1);
    const text = await fetch(server.url + txt.filename);
    expect(text.headers.get("content-type")).toBe("application/octet-stream");
    expect(text.headers.get("content-disposition")).toBe("attachment");
    expect(await text.text()).toBe("meeting notes\n");

    // The message as listed carries the same attachments.
    const listed = await server.api("GET", `/api/v1/messages/${channelId}`, { token: owner.token });
    expect(listed.body[0].attachments).toEqual(res.body.attachments);
  });

  test("the type comes from the bytes: a non-image named .png is stored as a download", async () => {
    const { member, channelId } = await community(server);
    const res = await upload(server, channelId, member, uploadForm([
      { bytes: NOT_AN_IMAGE, name: "evil.png", type: "image/png" },
      { bytes: GIF_1X1, name: "actually-a-gif.txt" },
    ]));
    expect(res.status).toBe(201);
    const [svg, realGif] = res.body.attachments;
    expect(svg).toMatchObject({ original_name: "evil.png", mime_type: "application/octet-stream" });
    expect(svg.filename).toMatch(stored("bin"));
    expect((await fetch(server.url + svg.filename)).headers.get("content-disposition")).toBe("attachment");
    expect(realGif).toMatchObject({ mime_type: "image/gif" });
    expect(realGif.filename).toMatch(stored("gif"));
    // Without content, a message of files only.
    expect(res.body.content).toBe("");
  });

  test("original_name: paths and control characters removed, at most 255 characters", async () => {
    const { member, channelId } = await community(server);
    const long = `${"é".repeat(300)}.txt`;
    const res = await upload(server, channelId, member, uploadForm([
      { bytes: TEXT, name: "../../etc/passwd" },
      { bytes: TEXT, name: long },
      { bytes: TEXT, name: "a\u202eb\u0007c.txt" },
    ]));
    expect(res.status).toBe(201);
    const names = res.body.attachments.map((a: { original_name: string }) => a.original_name);
    expect(names[0]).toBe("passwd");
    expect(Array.from(names[1] as string).length).toBe(255);
    expect(names[2]).toBe("abc.txt");
    expect(res.body.attachments[0].filename).toMatch(stored("bin"));
  });

  test("replyTo and remoteUrl (a GIF URL as the content, with or without files)", async () => {
    const { member, channelId } = await community(server);
    const first = await server.api("POST", `/api/v1/messages/${channelId}`, { token: member.token, body: { content: "first" } });
    const reply = await upload(server, channelId, member, uploadForm([{ bytes: TEXT, name: "a.txt" }], { replyTo: first.body.id }));
    expect(reply.status).toBe(201);
    expect(reply.body.reply_to).toBe(first.body.id);

    const url = "https://media.tenor.com/abc/party.gif";
    const remote = await upload(server, channelId, member, uploadForm([], { remoteUrl: url }));
    expect(remote.status).toBe(201);
    expect(remote.body).toMatchObject({ content: url, attachments: [] });
    const both = await upload(server, channelId, member, uploadForm([{ bytes: PNG_1X1, name: "p.png" }], { content: "hi", remoteUrl: url }));
    expect(both.body.content).toBe(`hi\n${url}`);
    expect(both.body.attachments).toHaveLength(1);
  });

  test("bad input is 400 and stores nothing", async () => {
    const { member, channelId } = await community(server);
    const before = filesIn(server);
    const one = [{ bytes: TEXT, name: "a.txt" }];
    expectError(await upload(server, channelId, member, uploadForm([], { content: "no files" })), 400, "files: at least one file is required");
    const eleven = Array.from({ length: 11 }, (_, i) => ({ bytes: TEXT, name: `${i}.txt` }));
    expectError(await upload(server, channelId, member, uploadForm(eleven)), 400, "files: at most 10 files per message");
    expect((await upload(server, channelId, member, uploadForm(eleven.slice(0, 10)))).status).toBe(201);
    const afterTen = filesIn(server);
    expect(afterTen.length).toBe(before.length + 10);
    for (const remoteUrl of ["ftp://example.com/a.gif", "not a url", "javascript:alert(1)", `https://x.test/${"a".repeat(2050)}`]) {
      expectError(await upload(server, channelId, member, uploadForm([], { remoteUrl })), 400, /^remoteUrl: /);
    }
    expectError(await upload(server, channelId, member, uploadForm(one, { replyTo: "nope" })), 400, "replyTo: must be a message id");
    expectError(await upload(server, channelId, member, uploadForm(one, { content: "x".repeat(4001) })), 400, /^content: /);
    const textAsFile = new FormData();
    textAsFile.append("files", "just text");
    expectError(await upload(server, channelId, member, textAsFile), 400, "files: must be files");
    expectError(await upload(server, channelId, member, "plain", { "content-type": "text/plain" }), 400, "Expected a multipart/form-data body");
    expect(filesIn(server)).toEqual(afterTen);
  });

  test("a send refused after the files were stored leaves no file and no row", async () => {
    const { owner, member, channelId, everyone } = await community(server);
    const before = filesIn(server);
    const countBefore = (await server.api("GET", `/api/v1/messages/${channelId}`, { token: owner.token })).body.length;
    const files = [{ bytes: PNG_1X1, name: "a.png" }, { bytes: TEXT, name: "b.txt" }];
    // reply_to is checked by send(), after the files are written.
    expectError(await upload(server, channelId, member, uploadForm(files, { replyTo: UNKNOWN })), 400, "reply_to: no such message in this channel");
    // SEND_MESSAGES denied: refused by send() too.
    await override(owner, channelId, everyone, 0, P.SEND_MESSAGES);
    expectError(await upload(server, channelId, member, uploadForm(files)), 403, /SEND_MESSAGES/);
    await override(owner, channelId, everyone, 0, 0);
    // Slowmode: the second upload is refused with 429.
    await server.api("PUT", `/api/v1/channels/${channelId}`, { token: owner.token, body: { slowmode: 60 } });
    expect((await upload(server, channelId, member, uploadForm(files))).status).toBe(201);
    const afterOne = filesIn(server);
    expectError(await upload(server, channelId, member, uploadForm(files)), 429, /Slowmode/);
    expect(filesIn(server)).toEqual(afterOne);
    expect(afterOne.length).toBe(before.length + 2);
    const countAfter = (await server.api("GET", `/api/v1/messages/${channelId}`, { token: owner.token })).body.length;
    expect(countAfter).toBe(countBefore + 1);
  });

  test("401, 403 without ATTACH_FILES or membership or in a hidden channel, 404 unknown channel", async () => {
    const { owner, member, outsider, channelId, everyone } = await community(server);
    const before = filesIn(server);
    const form = () => uploadForm([{ bytes: PNG_1X1, name: "a.png" }]);
    expectError(await upload(server, channelId, null, form()), 401);
    expectError(await upload(server, channelId, outsider, form()), 403, "You are not a member of this server");
    expectError(await upload(server, UNKNOWN, member, form()), 404, "Channel not found");
    expectError(await upload(server, "nope", member, form()), 404);
    await override(owner, channelId, everyone, 0, P.ATTACH_FILES);
    expectError(await upload(server, channelId, member, form()), 403, "Missing permission: ATTACH_FILES");
    // remoteUrl without files needs ATTACH_FILES as well.
    expectError(await upload(server, channelId, member, uploadForm([], { remoteUrl: "https://x.test/a.gif" })), 403, /ATTACH_FILES/);
    // The owner holds every bit.
    expect((await upload(server, channelId, owner, form())).status).toBe(201);
    await override(owner, channelId, everyone, 0, P.VIEW_CHANNEL);
    expectError(await upload(server, channelId, member, form()), 403, "Missing permission: VIEW_CHANNEL");
    expect(filesIn(server).length).toBe(before.length + 1);
  });

  test("413 from the content-length claim alone: over 25 MB for everyone, over 500 MB for premium", async () => {
    const { member, channelId } = await community(server);
    const path = `/api/v1/messages/${channelId}/upload`;
    const overStandard = await claimOnly(server, path, member.token, 26 * MB);
    expect(overStandard.status).toBe(413);
    expect(JSON.parse(overStandard.body)).toEqual({ error: "Upload too large: the limit is 25 MB" });
    await server.app.store.users.setPremium(member.id, true);
    const overPremium = await claimOnly(server, path, member.token, 501 * MB);
    expect(overPremium.status).toBe(413);
    expect(JSON.parse(overPremium.body)).toEqual({ error: "Upload too large: the limit is 500 MB" });
    // A refused caller is refused before the size: no body is needed to learn 403.
    const outsider = await server.register();
    expect((await claimOnly(server, path, outsider.token, 26 * MB)).status).toBe(403);
  });
});

describe("attachment size tiers (limits lowered for the test)", () => {
  let small: TestServer;
  beforeAll(async () => {
    small = await startServer();
    small.app.domain.messageUploads.limits = { standard: 1000, premium: 4000 };
  });
  afterAll(async () => {
    await small.stop();
  });

  const sized = (size: number) => uploadForm([{ bytes: new Uint8Array(size).fill(65), name: "blob.dat" }]);

  test("a file over the standard limit is 413 for a plain member, and stores nothing", async () => {
    const { member, channelId } = await community(small);
    expect((await upload(small, channelId, member, sized(1000))).status).toBe(201);
    const before = filesIn(small);
    expectError(await upload(small, channelId, member, sized(1001)), 413, "Upload too large: the limit is 1000 bytes");
    expect(filesIn(small)).toEqual(before);
  });

  test("a premium uploader gets the larger limit", async () => {
    const { member, channelId } = await community(small);
    await small.app.store.users.setPremium(member.id, true);
    const res = await upload(small, channelId, member, sized(3000));
    expect(res.status).toBe(201);
    expect(res.body.attachments[0]).toMatchObject({ size: 3000, original_name: "blob.dat", mime_type: "application/octet-stream" });
    expectError(await upload(small, channelId, member, sized(4001)), 413, "Upload too large: the limit is 3.9 KB");
    await small.app.store.users.setPremium(member.id, false);
    expect((await upload(small, channelId, member, sized(3000))).status).toBe(413);
  });

  test("everyone gets the larger limit in a verified server", async () => {
    const { member, channelId, serverId } = await community(small);
    expect((await upload(small, channelId, member, sized(3000))).status).toBe(413);
    await small.app.store.admin.setServerVerified(serverId, true);
    expect((await upload(small, channelId, member, sized(3000))).status).toBe(201);
  });
});

describe("POST /api/v1/messages/:channelId/gif", () => {
  test("by URL: a message whose content is the URL", async () => {
    const { owner, member, channelId } = await community(server);
    const socket = await server.connect(owner.token);
    await socket.emitWithAck("channel:join", channelId);
    const received = waitForEvent(socket, "message:new");
    const url = "https://media.giphy.com/media/xyz/giphy.gif";
    const res = await gif(channelId, member, { url });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(MESSAGE_KEYS);
    expect(res.body).toMatchObject({ content: url, attachments: [], user_id: member.id });
    expect(await received).toEqual(res.body);
    socket.close();
  });

  test("by gif_id: one of this server's GIFs, sent as its served path", async () => {
    const { owner, member, channelId, serverId } = await community(server);
    const form = new FormData();
    form.append("file", new File([GIF_1X1], "dance.gif"));
    const created = await server.api("POST", `/api/v1/servers/${serverId}/gifs`, { token: owner.token, raw: form });
    expect(created.status).toBe(201);
    const res = await gif(channelId, member, { gif_id: created.body.id, reply_to: null });
    expect(res.status).toBe(201);
    expect(res.body.content).toBe(created.body.url);
    expect(res.body.content).toMatch(/^\/uploads\/server-gifs\//);
    // Another server's GIF is not found here.
    const other = await community(server);
    expectError(await gif(other.channelId, other.member, { gif_id: created.body.id }), 404, "GIF not found");
    expectError(await gif(channelId, member, { gif_id: UNKNOWN }), 404, "GIF not found");
    expectError(await gif(channelId, member, { gif_id: "nope" }), 404, "GIF not found");
  });

  test("bad input 400, 401, 403, 404", async () => {
    const { owner, member, outsider, channelId, everyone } = await community(server);
    expectError(await gif(channelId, member, {}), 400, "body: give either url or gif_id");
    expectError(await gif(channelId, member, { url: "https://x.test/a.gif", gif_id: UNKNOWN }), 400, "body: give either url or gif_id");
    expectError(await gif(channelId, member, { url: "ftp://x.test/a.gif" }), 400, "url: must be an http(s) URL");
    expectError(await gif(channelId, member, { url: 5 }), 400, "url: must be a string");
    expectError(await gif(channelId, member, { url: "https://x.test/a.gif", reply_to: "x" }), 400, "reply_to: must be a message id");
    expectError(await gif(channelId, null, { url: "https://x.test/a.gif" }), 401);
    expectError(await gif(channelId, outsider, { url: "https://x.test/a.gif" }), 403, "You are not a member of this server");
    expectError(await gif(UNKNOWN, member, { url: "https://x.test/a.gif" }), 404);
    await override(owner, channelId, everyone, 0, P.ATTACH_FILES);
    expectError(await gif(channelId, member, { url: "https://x.test/a.gif" }), 403, "Missing permission: ATTACH_FILES");
  });
});

describe("GET /api/v1/messages/attachment/:attachmentId", () => {
  test("metadata for readers; 404 for anyone who cannot read the channel", async () => {
    const { owner, member, outsider, channelId, everyone } = await community(server);
    const sent = await upload(server, channelId, member, uploadForm([{ bytes: PNG_1X1, name: "pic.png" }]));
    const attachment = sent.body.attachments[0];
    const res = await attachmentInfo(attachment.id, owner);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(INFO_KEYS);
    expect(res.body).toEqual({
      id: attachment.id, message_id: sent.body.id, channel_id: channelId, filename: attachment.filename,
      original_name: "pic.png", mime_type: "image/png", size: PNG_1X1.byteLength, width: 1, height: 1, url: attachment.filename,
    });
    expectError(await attachmentInfo(attachment.id, null), 401);
    expectError(await attachmentInfo(attachment.id, outsider), 404, "Attachment not found");
    expectError(await attachmentInfo(UNKNOWN, owner), 404, "Attachment not found");
    expectError(await attachmentInfo("nope", owner), 404, "Attachment not found");
    await override(owner, channelId, everyone, 0, P.READ_MESSAGE_HISTORY);
    expectError(await attachmentInfo(attachment.id, member), 404, "Attachment not found");
    await override(owner, channelId, everyone, 0, P.VIEW_CHANNEL);
    expectError(await attachmentInfo(attachment.id, member), 404, "Attachment not found");
    expect((await attachmentInfo(attachment.id, owner)).status).toBe(200);
  });
});

describe("attachment files leave the disk with their message, channel or server", () => {
  const twoFiles = () => uploadForm([{ bytes: PNG_1X1, name: "a.png" }, { bytes: TEXT, name: "b.txt" }]);
  const paths = (res: { body: { attachments: { filename: string }[] } }) => res.body.attachments.map((a) => a.filename);

  test("message delete", async () => {
    const { member, channelId } = await community(server);
    const sent = await upload(server, channelId, member, twoFiles());
    const kept = await upload(server, channelId, member, twoFiles());
    expect(paths(sent).every((p) => onDisk(server, p))).toBe(true);
    expect((await server.api("DELETE", `/api/v1/messages/${sent.body.id}`, { token: member.token })).status).toBe(200);
    expect(paths(sent).some((p) => onDisk(server, p))).toBe(false);
    expect(paths(kept).every((p) => onDisk(server, p))).toBe(true);
    expectError(await attachmentInfo(sent.body.attachments[0].id, member), 404);
  });

  test("channel delete", async () => {
    const { owner, member, channelId, serverId } = await community(server);
    const created = await server.api("POST", `/api/v1/channels/${serverId}`, { token: owner.token, body: { name: "files", type: "text" } });
    expect(created.status).toBe(201);
    const doomed = await upload(server, created.body.id, member, twoFiles());
    const kept = await upload(server, channelId, member, twoFiles());
    expect((await server.api("DELETE", `/api/v1/channels/${created.body.id}`, { token: owner.token })).status).toBe(200);
    // Removed by the background delete (docs/servers.md, "Deleting a server").
    await server.app.domain.deletions.idle();
    expect(paths(doomed).some((p) => onDisk(server, p))).toBe(false);
    expect(paths(kept).every((p) => onDisk(server, p))).toBe(true);
  });

  test("server delete", async () => {
    const { owner, member, channelId } = await community(server);
    const other = await community(server);
    const doomed = [await upload(server, channelId, member, twoFiles()), await upload(server, channelId, owner, twoFiles())];
    const kept = await upload(server, other.channelId, other.member, twoFiles());
    const serverId = (await server.app.store.channels.findById(channelId))!.server_id;
    expect((await server.api("DELETE", `/api/v1/servers/${serverId}`, { token: owner.token })).status).toBe(200);
    await server.app.domain.deletions.idle();
    expect(doomed.flatMap(paths).some((p) => onDisk(server, p))).toBe(false);
    expect(paths(kept).every((p) => onDisk(server, p))).toBe(true);
  });
});

describe("file typing and names (pure)", () => {
  test.each([
    [PNG_1X1, "x.txt", "png", "image/png"],
    [GIF_1X1, "x", "gif", "image/gif"],
    [PDF, "x.dat", "pdf", "application/pdf"],
    [TEXT, "notes.TXT", "txt", "application/octet-stream"],
    [TEXT, "fake.png", "bin", "application/octet-stream"],
    [TEXT, "fake.webp", "bin", "application/octet-stream"],
    [TEXT, "noext", "bin", "application/octet-stream"],
    [TEXT, "weird.ex$e", "bin", "application/octet-stream"],
    [TEXT, "long.abcdefghij", "bin", "application/octet-stream"],
    [new Uint8Array(0), "empty.txt", "txt", "application/octet-stream"],
  ])("fileTypeOf case %#", (bytes, name, ext, mime) => {
    expect(fileTypeOf(bytes as Uint8Array, name as string)).toEqual({ ext: ext as string, mime: mime as string });
  });

  test.each([
    ["report.pdf", "report.pdf"],
    ["C:\\Users\\me\\report.pdf", "report.pdf"],
    ["/etc/passwd", "passwd"],
    ["..", "file"],
    ["", "file"],
    ["   ", "file"],
    ["a\u0000b", "ab"],
  ])("sanitizeFileName(%p) = %p", (raw, expected) => {
    expect(sanitizeFileName(raw)).toBe(expected);
  });
});
