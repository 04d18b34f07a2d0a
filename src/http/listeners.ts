import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Server, ServerWebSocketSendStatus } from "bun";

type BunServer = Server<unknown>;

/** TLS_CERT_FILE and TLS_KEY_FILE (docs/operations.md, "TLS"). */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** A certificate (PEM, the chain after it if any) and its private key, read and checked. */
export interface TlsPair {
  cert: string;
  key: string;
  /** The leaf certificate's subject (`CN=chat.example.com`) and when it expires, for the log. */
  subject: string;
  validTo: Date;
}

/** A TLS file that cannot be read, is not PEM, or a key that is not the certificate's. */
export class TlsFileError extends Error {}

const reason = (error: unknown) => ((error as { code?: string }).code ?? (error as Error).message);

/** Reads both files and checks them before Bun is given them, so a bad pair gets a message naming the file. */
export function readTlsPair(files: TlsFiles): TlsPair {
  const read = (name: string, path: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch (error) {
      throw new TlsFileError(`${name} ${path} cannot be read (${reason(error)})`);
    }
  };
  const cert = read("TLS_CERT_FILE", files.certFile);
  const key = read("TLS_KEY_FILE", files.keyFile);
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch {
    throw new TlsFileError(`TLS_CERT_FILE ${files.certFile} holds no PEM certificate`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new TlsFileError(`TLS_KEY_FILE ${files.keyFile} holds no PEM private key (an encrypted key is not supported)`);
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new TlsFileError(`TLS_KEY_FILE ${files.keyFile} is not the private key of the certificate in TLS_CERT_FILE ${files.certFile}`);
  }
  return { cert, key, subject: leaf.subject.replaceAll("\n", ", "), validTo: new Date(leaf.validTo) };
}

/** How often listeners replaced by a reload are checked for their last connections. */
const RETIRED_SWEEP_MS = 1000;

/**
 * The Bun servers Hearth listens with (docs/operations.md, "TLS"). One at a time accepts
 * connections; a TLS reload starts a new one on the same port (SO_REUSEPORT) with the new
 * certificate, because Bun's `server.reload` keeps the certificate it started with, and then
 * stops the old one from accepting. The old one keeps its open connections (WebSockets, and
 * requests in flight; Bun closes its idle keep-alive connections at once), so a connected client
 * notices nothing, and it is dropped once they are gone.
 *
 * Bun's pub/sub is per server, so while replaced listeners still hold WebSockets a publish goes
 * to every listener; an upgrade is tried on each, for the one the request came in on. The
 * gateway's engine and the native fan-out are given this set in place of a Bun server
 * (`asServer`): they use `upgrade`, `requestIP` and `publish`, which it answers for all of them.
 */
export class Listeners {
  private current: BunServer;
  private readonly retired = new Set<BunServer>();
  private sweep: ReturnType<typeof setInterval> | null = null;

  /**
   * `listen` starts one Bun server with the app's options and the given TLS pair (the port of
   * the first one is passed to the next), and `ready` prepares each one before it is used.
   */
  constructor(
    private readonly listen: (tls: TlsPair | undefined, port: number | undefined) => BunServer,
    private readonly ready: (server: BunServer) => void,
    tls: TlsPair | undefined,
  ) {
    this.current = listen(tls, undefined);
    this.port = this.current.port!;
    ready(this.current);
  }

  /** The port every listener shares (known after the first one binds it; port 0 picks one). */
  readonly port: number;

  /** The listener that accepts new connections. */
  get server(): BunServer {
    return this.current;
  }

  /** Whether more than one listener holds connections (a reload's predecessor still has some). */
  get several(): boolean {
    return this.retired.size > 0;
  }

  /**
   * Starts a listener with the new pair and retires the current one. Throws (and the current one
   * goes on) when Bun refuses the pair or the port.
   */
  replace(tls: TlsPair): void {
    const next = this.listen(tls, this.port);
    this.ready(next);
    const old = this.current;
    this.current = next;
    this.retired.add(old);
    // Stops accepting; what is open goes on. The promise settles once it is all closed.
    void old.stop(false);
    this.sweep ??= setInterval(() => this.dropIdle(), RETIRED_SWEEP_MS);
    this.sweep.unref();
  }

  /** Every listener still holding connections, the accepting one first. */
  all(): BunServer[] {
    return [this.current, ...this.retired];
  }

  get pendingRequests(): number {
    return this.all().reduce((n, server) => n + server.pendingRequests, 0);
  }

  get pendingWebSockets(): number {
    return this.all().reduce((n, server) => n + server.pendingWebSockets, 0);
  }

  publish(topic: string, data: Parameters<BunServer["publish"]>[1], compress?: boolean): ServerWebSocketSendStatus {
    // Every gateway broadcast comes here: with one listener (no reload pending), no array.
    if (this.retired.size === 0) return this.current.publish(topic, data, compress);
    let sent = 0;
    for (const server of this.all()) sent += server.publish(topic, data, compress);
    return sent;
  }

  /** Upgrades on the listener the request came in on: any other refuses it (returns false) and changes nothing. */
  upgrade(request: Request, options: { headers?: Bun.HeadersInit; data: unknown }): boolean {
    if (this.retired.size === 0) return this.current.upgrade(request, options);
    for (const server of this.all()) if (server.upgrade(request, options)) return true;
    return false;
  }

  /** Any listener answers for a request that came in on another. */
  requestIP(request: Request): ReturnType<BunServer["requestIP"]> {
    return this.current.requestIP(request);
  }

  /** Stops every listener (`closeActiveConnections`: at once, else once their connections end). */
  async stop(closeActiveConnections: boolean): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    this.sweep = null;
    await Promise.all(this.all().map((server) => server.stop(closeActiveConnections)));
  }

  /**
   * This set where a Bun server is expected: the gateway's engine (upgrades, client addresses,
   * pub/sub) and the native fan-out use only the members above.
   */
  asServer(): BunServer {
    return this as unknown as BunServer;
  }

  private dropIdle(): void {
    for (const server of this.retired) {
      if (server.pendingRequests === 0 && server.pendingWebSockets === 0) this.retired.delete(server);
    }
    if (this.retired.size === 0 && this.sweep) {
      clearInterval(this.sweep);
      this.sweep = null;
    }
  }
}

/** Whether `server` is a Listeners set (asServer) that a reload's predecessor still shares. */
export function servesSeveral(server: BunServer | null): boolean {
  return server instanceof Listeners && server.several;
}
