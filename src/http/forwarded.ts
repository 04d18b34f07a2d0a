import parseForwarded from "forwarded-parse";
import proxyaddr from "proxy-addr";

/**
 * Requests through a proxy Hearth trusts (TRUST_PROXY; docs/operations.md, "Behind a reverse
 * proxy"): the client's address, scheme and host as the proxies report them. Only hops Hearth
 * trusts are believed, so a client cannot name itself: the chain (the peer, then the addresses
 * the proxies appended, nearest first) is walked while each hop is trusted, by count or by
 * address range (proxy-addr, Express's rule), and the first untrusted one is the client.
 * The standard `Forwarded` header (RFC 7239) is read when present, else `X-Forwarded-For`,
 * `-Proto` and `-Host`.
 */

/** TRUST_PROXY: how many hops in front of Hearth are proxies, or their addresses and CIDR ranges. */
export type TrustProxySetting = number | string[];

export type ProxyTrust = (address: string, hop: number) => boolean;

/** A check of each hop; throws on an address or range proxy-addr cannot read (config.ts reports it). */
export function compileTrust(setting: TrustProxySetting): ProxyTrust {
  if (typeof setting === "number") return (_address, hop) => hop < setting;
  return proxyaddr.compile(setting);
}

export interface ForwardedClient {
  address: string;
  /** The scheme and host the client used, when it came through a trusted proxy. */
  proto?: "http" | "https";
  host?: string;
}

/** `for=` values are `[v6]:port`, `v4:port`, a bare address, or `unknown` and obfuscated names. */
function bareAddress(value: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) return bracketed[1]!;
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(value);
  return v4 ? v4[1]! : value;
}

/** A header's comma-separated values, outermost first. */
const list = (value: string | null) => (value ? value.split(",").map((part) => part.trim()).filter(Boolean) : []);

export function forwardedClient(headers: Headers, peer: string, trust: ProxyTrust): ForwardedClient {
  let hops: string[];
  let protos: (string | undefined)[];
  let hosts: (string | undefined)[];
  const standard = headers.get("forwarded");
  let elements: Record<string, string>[] | null = null;
  if (standard) {
    try {
      elements = parseForwarded(standard);
    } catch {
      // A malformed header is ignored as a whole: nothing in it can be believed.
    }
  }
  if (elements) {
    hops = elements.map((element) => bareAddress(element.for ?? "unknown"));
    protos = elements.map((element) => element.proto);
    hosts = elements.map((element) => element.host);
  } else {
    hops = list(headers.get("x-forwarded-for"));
    protos = list(headers.get("x-forwarded-proto"));
    hosts = list(headers.get("x-forwarded-host"));
  }
  // proxy-addr walks a Node request: the peer, then X-Forwarded-For from the right.
  const chain = proxyaddr.all({ headers: { "x-forwarded-for": hops.join(", ") }, connection: { remoteAddress: peer } } as never, trust);
  const client: ForwardedClient = { address: chain.at(-1) ?? peer };
  const trustedHops = chain.length - 1;
  if (trustedHops === 0) return client;
  // What the outermost trusted proxy saw: its value is the trustedHops-th from the right.
  const pick = (values: (string | undefined)[]) => values[values.length - trustedHops] ?? values[0];
  const proto = pick(protos)?.toLowerCase();
  if (proto === "http" || proto === "https") client.proto = proto;
  // A proxy that names no host passed the client's Host on (HAProxy, nginx's usual setup).
  const host = pick(hosts) ?? headers.get("host") ?? undefined;
  if (host && /^[A-Za-z0-9\-._~%!$&'()*+,;=:[\]]+$/.test(host) && URL.canParse(`http://${host}/`)) client.host = host;
  return client;
}
