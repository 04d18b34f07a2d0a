import type { Server } from "bun";

/** The peer address of a request, as Bun's server saw it. */
export function clientAddress(request: Request, server: Server<unknown> | null): string {
  return server?.requestIP(request)?.address ?? "unknown";
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
