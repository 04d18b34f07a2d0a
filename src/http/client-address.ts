import type { Server } from "bun";

/** The peer address of a request, as Bun's server saw it. */
export function clientAddress(request: Request, server: Server<unknown> | null): string {
  return server?.requestIP(request)?.address ?? "unknown";
}
