/**
 * TLS_CERT_FILE / TLS_KEY_FILE (docs/operations.md, "TLS"): the server process serves HTTPS and
 * WSS itself and takes a new certificate on SIGHUP without dropping a connection. Certificates
 * are made here with openssl: a CA of the test's own, trusted by the clients (`ca`), and two
 * server certificates it signs, told apart by their CN.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, copyFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { io as connectClient, type Socket as ClientSocket } from "socket.io-client";
import { startProcess, type HearthProcess } from "../helpers/process.ts";
import { until } from "../helpers/wait.ts";

/** Waits for `check`, failing with its source. */
const waitUntil = (check: () => boolean) => until(check, check.toString(), 10_000);

const ROOT = join(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "hearth-tls-"));
const file = (name: string) => join(dir, name);

function openssl(...args: string[]): void {
  const run = Bun.spawnSync(["openssl", ...args], { cwd: dir, stderr: "pipe", stdout: "pipe" });
  if (run.exitCode !== 0) throw new Error(`openssl ${args.join(" ")}: ${run.stderr.toString()}`);
}

/** A certificate for 127.0.0.1 signed by the test CA, as `<name>.crt` and `<name>.key`. */
function serverCertificate(name: string, cn: string): void {
  openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${cn}`);
  writeFileSync(file(`${name}.ext`), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  openssl("x509", "-req", "-in", `${name}.csr`, "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-out", `${name}.crt`, "-extfile", `${name}.ext`);
}

let ca: string;
/** The files the server is pointed at; the test copies a pair over them before a SIGHUP. */
const served = { cert: file("served.crt"), key: file("served.key") };
const serve = (name: string) => {
  copyFileSync(file(`${name}.crt`), served.cert);
  copyFileSync(file(`${name}.key`), served.key);
};

beforeAll(() => {
  openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=Hearth Test CA");
  serverCertificate("first", "first.hearth.test");
  serverCertificate("second", "second.hearth.test");
  ca = readFileSync(file("ca.crt"), "utf8");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CN of the certificate a new TLS connection to `port` is shown (verified against the test CA). */
function peerCommonName(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, ca, servername: "localhost" }, () => {
      const cn = socket.getPeerCertificate().subject.CN;
      socket.end();
      resolve((Array.isArray(cn) ? cn[0] : cn) ?? "");
    });
    socket.on("error", reject);
  });
}

const lines = (hearth: HearthProcess) =>
  (hearth.output() + hearth.errors())
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { level: string; msg: string; [field: string]: unknown });

async function api(url: string, method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(url + path, {
    method,
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    tls: { ca },
  });
  return { status: response.status, body: (await response.json()) as any };
}

function gatewayClient(url: string, token: string): Promise<ClientSocket> {
  const socket = connectClient(url.replace(/^https/, "wss"), { auth: { token }, transports: ["websocket"], reconnection: false, forceNew: true, ca });
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", reject);
  });
}

describe("serving TLS directly", () => {
  test("HTTPS and WSS; SIGHUP serves a new certificate to new connections, keeps connected sockets and refuses a broken pair; SIGTERM drains", async () => {
    serve("first");
    const hearth = await startProcess({ DATA_DIR: file("data"), TLS_CERT_FILE: served.cert, TLS_KEY_FILE: served.key, LOG_FORMAT: "json" });
    const sockets: ClientSocket[] = [];
    try {
      expect(hearth.url).toStartWith("https://127.0.0.1:");
      const port = Number(new URL(hearth.url).port);
      expect(await peerCommonName(port)).toBe("first.hearth.test");
      expect(lines(hearth).find((line) => line.msg === "tls loaded")).toMatchObject({ subject: "CN=first.hearth.test" });

      // REST over HTTPS, and discovery names the https origin.
      const discovery = await api(hearth.url, "GET", "/api/v1");
      expect(discovery.status).toBe(200);
      expect(discovery.body.gateway.url).toBe(hearth.url);
      const registered = await api(hearth.url, "POST", "/api/v1/auth/register", undefined, { username: "tls_owner", email: "tls@example.test", password: "tls-owner-password" });
      expect(registered.status).toBe(201);
      const token = registered.body.token as string;
      const created = await api(hearth.url, "POST", "/api/v1/servers", token, { name: "TLS" });
      expect(created.status).toBe(201);
      const channels = await api(hearth.url, "GET", `/api/v1/channels/${created.body.id}`, token);
      const channelId = (channels.body.channels as { id: string; type: string }[]).find((c) => c.type === "text")!.id;

      // The gateway over WSS: a socket in the channel's room gets each message.
      const early = await gatewayClient(hearth.url, token);
      sockets.push(early);
      expect(await early.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
      const received: string[] = [];
      early.on("message:new", (message: { content: string }) => received.push(message.content));
      const send = async (content: string) => expect((await api(hearth.url, "POST", `/api/v1/messages/${channelId}`, token, { content })).status).toBe(201);
      await send("before reload");
      await waitUntil(() => received.includes("before reload"));

      // A new pair and SIGHUP: new connections see it.
      serve("second");
      hearth.proc.kill("SIGHUP");
      await waitUntil(() => lines(hearth).some((line) => line.msg === "tls reloaded"));
      expect(lines(hearth).find((line) => line.msg === "tls reloaded")).toMatchObject({ subject: "CN=second.hearth.test" });
      expect(await peerCommonName(port)).toBe("second.hearth.test");

      // The socket connected before the reload (on the old listener) keeps getting every
      // message, and so does one connected after it (on the new one).
      const late = await gatewayClient(hearth.url, token);
      sockets.push(late);
      expect(await late.emitWithAck("channel:join", channelId)).toEqual({ ok: true, channelId });
      const lateReceived: string[] = [];
      late.on("message:new", (message: { content: string }) => lateReceived.push(message.content));
      for (let i = 0; i < 20; i++) await send(`after reload ${i}`);
      const expected = ["before reload", ...Array.from({ length: 20 }, (_, i) => `after reload ${i}`)];
      await waitUntil(() => received.length >= expected.length && lateReceived.length >= 20);
      expect(received).toEqual(expected);
      expect(lateReceived).toEqual(expected.slice(1));
      expect(early.connected).toBe(true);
      expect(hearth.proc.exitCode).toBeNull();

      // A broken pair: logged, and the current certificate is still served.
      writeFileSync(served.cert, "not a certificate\n");
      hearth.proc.kill("SIGHUP");
      await waitUntil(() => lines(hearth).some((line) => line.msg.startsWith("tls reload failed")));
      expect(lines(hearth).find((line) => line.msg.startsWith("tls reload failed"))).toMatchObject({ level: "error" });
      expect(String(lines(hearth).find((line) => line.msg.startsWith("tls reload failed"))!.error)).toContain("TLS_CERT_FILE");
      expect(await peerCommonName(port)).toBe("second.hearth.test");
      // A key that is not the certificate's: refused too.
      copyFileSync(file("first.crt"), served.cert);
      copyFileSync(file("second.key"), served.key);
      hearth.proc.kill("SIGHUP");
      await waitUntil(() => lines(hearth).filter((line) => line.msg.startsWith("tls reload failed")).length === 2);
      expect(String(lines(hearth).filter((line) => line.msg.startsWith("tls reload failed"))[1]!.error)).toContain("is not the private key");
      expect(await peerCommonName(port)).toBe("second.hearth.test");
      await send("after broken reloads");
      await waitUntil(() => received.includes("after broken reloads") && lateReceived.includes("after broken reloads"));

      // SIGTERM drains and exits 0: every listener closes (the old one held `early`).
      const closed = Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once("disconnect", resolve))));
      hearth.proc.kill("SIGTERM");
      expect(await hearth.proc.exited).toBe(0);
      await closed;
      expect(await peerCommonName(port).then(() => "listening", () => "closed")).toBe("closed");
    } finally {
      for (const socket of sockets) socket.close();
      hearth.proc.kill("SIGKILL");
    }
  }, 30_000);

  test("voice frames after a reload: a bot on the old listener reaches listeners on both, and not itself; a trusted proxy naming no scheme is taken to have used https", async () => {
    serve("first");
    const hearth = await startProcess({ DATA_DIR: file("voice"), TLS_CERT_FILE: served.cert, TLS_KEY_FILE: served.key, LOG_FORMAT: "json", TRUST_PROXY: "loopback" });
    const sockets: ClientSocket[] = [];
    const connect = async (token: string) => {
      const socket = await gatewayClient(hearth.url, token);
      sockets.push(socket);
      return socket;
    };
    try {
      const register = async (username: string) => {
        const res = await api(hearth.url, "POST", "/api/v1/auth/register", undefined, { username, email: `${username}@example.test`, password: `${username}-password` });
        expect(res.status).toBe(201);
        return res.body.token as string;
      };
      // A trusted proxy that names the host but not the scheme: the scheme of its connection, https.
      const proxied = await fetch(`${hearth.url}/api/v1`, { headers: { "x-forwarded-for": "203.0.113.8", "x-forwarded-host": "chat.example.org" }, tls: { ca } });
      expect(((await proxied.json()) as { gateway: { url: string } }).gateway.url).toBe("https://chat.example.org");
      const owner = await register("voice_owner");
      const member = await register("voice_member");
      const serverId = (await api(hearth.url, "POST", "/api/v1/servers", owner, { name: "Voice" })).body.id as string;
      const invite = await api(hearth.url, "POST", `/api/v1/servers/${serverId}/invites`, owner, {});
      expect((await api(hearth.url, "POST", `/api/v1/servers/join/${invite.body.code}`, member)).status).toBe(200);
      const voice = await api(hearth.url, "POST", `/api/v1/channels/${serverId}`, owner, { name: "Lounge", type: "voice" });
      expect(voice.status).toBe(201);
      const channelId = voice.body.id as string;
      const app = await api(hearth.url, "POST", "/api/v1/oauth2/applications", owner, { name: "Speaker", description: "plays frames" });
      expect(app.status).toBe(201);
      expect((await api(hearth.url, "POST", `/api/v1/oauth2/applications/${app.body.application.id}/servers/${serverId}`, owner, {})).status).toBeLessThan(300);
      const joinVoice = async (socket: ClientSocket) => expect((await socket.emitWithAck("voice:join", { channelId })).ok).toBe(true);

      // The bot and the owner connect before the reload (to the first listener), the member after it.
      const bot = await connect(app.body.bot_token);
      const early = await connect(owner);
      hearth.proc.kill("SIGHUP");
      await waitUntil(() => lines(hearth).some((line) => line.msg === "tls reloaded"));
      const late = await connect(member);
      for (const socket of [bot, early, late]) await joinVoice(socket);
      const frames = (socket: ClientSocket) => {
        const got: number[] = [];
        socket.on("bot:audio-data", (payload: { pcm: ArrayBuffer | Uint8Array }) => got.push(new Uint8Array(payload.pcm as ArrayBuffer)[0]!));
        return got;
      };
      const atEarly = frames(early);
      const atLate = frames(late);
      const atBot = frames(bot);
      for (let n = 0; n < 10; n++) {
        const pcm = new Uint8Array(3840).fill(n);
        bot.emit("bot:audio-data", { channelId, pcm });
        await Bun.sleep(20);
      }
      await waitUntil(() => atEarly.length >= 10 && atLate.length >= 10);
      const sent = Array.from({ length: 10 }, (_, n) => n);
      expect(atEarly).toEqual(sent);
      expect(atLate).toEqual(sent);
      expect(atBot).toEqual([]);
    } finally {
      for (const socket of sockets) socket.close();
      hearth.proc.kill("SIGKILL");
    }
  }, 30_000);

  test("SIGHUP without TLS logs that there is nothing to reload and goes on serving", async () => {
    const hearth = await startProcess({ DATA_DIR: file("plain"), LOG_FORMAT: "json" });
    try {
      expect(hearth.url).toStartWith("http://");
      hearth.proc.kill("SIGHUP");
      await waitUntil(() => lines(hearth).some((line) => line.msg.startsWith("SIGHUP: nothing to reload")));
      expect((await fetch(`${hearth.url}/healthz`)).status).toBe(200);
      hearth.proc.kill("SIGTERM");
      expect(await hearth.proc.exited).toBe(0);
    } finally {
      hearth.proc.kill("SIGKILL");
    }
  }, 20_000);

  test("an unreadable or mismatched pair at start: a clear error naming the file, exit 1", async () => {
    const run = async (env: Record<string, string>) => {
      const proc = Bun.spawn([process.execPath, "src/main.ts"], {
        cwd: ROOT,
        env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: file("bad"), LOG_FORMAT: "json", ...env },
        stdout: "pipe",
        stderr: "pipe",
      });
      const code = await proc.exited;
      return { code, out: (await new Response(proc.stdout).text()) + (await new Response(proc.stderr).text()) };
    };
    const missing = await run({ TLS_CERT_FILE: file("nowhere.crt"), TLS_KEY_FILE: file("first.key") });
    expect(missing.code).toBe(1);
    expect(missing.out).toContain(`TLS_CERT_FILE ${file("nowhere.crt")} cannot be read (ENOENT)`);
    expect(missing.out).not.toContain("    at ");
    const mismatched = await run({ TLS_CERT_FILE: file("first.crt"), TLS_KEY_FILE: file("second.key") });
    expect(mismatched.code).toBe(1);
    expect(mismatched.out).toContain("is not the private key of the certificate");
    const half = await run({ TLS_CERT_FILE: file("first.crt") });
    expect(half.code).toBe(1);
    expect(half.out).toContain("TLS_CERT_FILE is set without TLS_KEY_FILE");
  }, 30_000);
});
