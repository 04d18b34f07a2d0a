import type { Server } from "bun";
import { forwardedClient, type ForwardedClient, type ProxyTrust } from "./forwarded.ts";

/** The proxies each server trusts (TRUST_PROXY), set once it listens (app.ts). */
const trustOf = new WeakMap<object, ProxyTrust>();

export function trustProxies(server: Server<unknown>, trust: ProxyTrust): void {
  trustOf.set(server, trust);
}

/**
 * The client of a request: the TCP peer, as Bun's server saw it, or, through proxies the
 * server trusts (TRUST_PROXY), the client they name (./forwarded.ts), with the scheme and host
 * it used.
 */
export function forwardedRequest(request: Request, server: Server<unknown> | null): ForwardedClient {
  const peer = server?.requestIP(request)?.address ?? "unknown";
  const trust = server && trustOf.get(server);
  return trust ? forwardedClient(request.headers, peer, trust) : { address: peer };
}

/**
 * Where the client reached this instance, as a trusted proxy reports it: `<proto>://<host>`
 * (./forwarded.ts), the scheme of the proxy's own connection when it names none; null when no
 * trusted proxy is in front (app.ts then uses the address it listens on).
 */
export function forwardedBaseUrl(request: Request, server: Server<unknown> | null): string | null {
  const client = forwardedRequest(request, server);
  return client.host ? `${client.proto ?? (request.url.startsWith("https:") ? "https" : "http")}://${client.host}` : null;
}

/** The client's address (see `forwardedRequest`). */
export function clientAddress(request: Request, server: Server<unknown> | null): string {
  return forwardedRequest(request, server).address;
}

/**
 * The address a per-address limit counts against (login, registration, credential checks,
 * pending gateway sessions): an IPv6 client by its /64, the block one subscriber is given, so
 * rotating through its own 2^64 addresses neither multiplies its budget nor fills the
 * limiters with keys; an IPv4 client (IPv4-mapped IPv6 included) by its address.
 */
export function limitedClientAddress(request: Request, server: Server<unknown> | null): string {
  return addressForLimits(clientAddress(request, server));
}

export function addressForLimits(address: string): string {
  if (!address.includes(":")) return address;
  const bare = address.split("%")[0]!.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1]!;
  const halves = bare.split("::");
  if (halves.length > 2) return bare;
  const groupsOf = (part: string) => (part === "" ? [] : part.split(":"));
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  const zeros = halves.length === 2 ? Array<string>(Math.max(0, 8 - width(head) - width(tail))).fill("0") : [];
  const groups = [...head, ...zeros, ...tail];
  if (groups.length < 4 || !groups.slice(0, 4).every((g) => /^[0-9a-f]{1,4}$/.test(g))) return bare;
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}
