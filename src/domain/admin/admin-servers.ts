import * as v from "valibot";
import type { Store } from "../../store/store.ts";
import type { AdminServerRow } from "../../store/admin-repo.ts";
import type { UserRow } from "../../store/users-repo.ts";
import type { Admins } from "./admins.ts";
import { notFound } from "../shared/errors.ts";
import { isUuid } from "../shared/validation.ts";
import { ImageUrl, UnixSeconds, Uuid } from "../shared/shapes.ts";
import { NamedUser } from "./admin-users.ts";

/** A server as platform administrators see it (docs/admin.md#servers). */
export const AdminServer = v.object({
  id: Uuid,
  name: v.string(),
  description: v.string(),
  icon: ImageUrl,
  owner: NamedUser,
  verified: v.boolean(),
  member_count: v.number(),
  created_at: UnixSeconds,
});
export type AdminServer = v.InferOutput<typeof AdminServer>;

const toAdminServer = (row: AdminServerRow): AdminServer => ({
  id: row.id,
  name: row.name,
  description: row.description,
  icon: row.icon,
  owner: { id: row.owner_id, username: row.owner_username },
  verified: row.verified === 1,
  member_count: row.member_count,
  created_at: row.created_at,
});

/**
 * Every server of the platform, for administrators: list and search, and the verified flag
 * (verified servers give every member the premium attachment limit: docs/messages.md).
 */
export class AdminServers {
  constructor(private readonly store: Store, private readonly admins: Admins) {}

  async list(filter: { q: string | null; verified: boolean | null }, before: string | null, limit: number): Promise<AdminServer[]> {
    return (await this.store.admin.servers(filter, before, limit)).map(toAdminServer);
  }

  async get(id: string): Promise<AdminServer> {
    const row = isUuid(id) ? await this.store.admin.server(id.toLowerCase()) : null;
    if (!row) throw notFound("Server");
    return toAdminServer(row);
  }

  async setVerified(actor: UserRow, id: string, verified: boolean): Promise<AdminServer> {
    const before = await this.get(id);
    if (before.verified === verified) return before;
    const row = await this.store.admin.setServerVerified(before.id, verified);
    if (!row) throw notFound("Server");
    await this.admins.record(actor, verified ? "SERVER_VERIFY" : "SERVER_UNVERIFY", { type: "server", id: row.id }, { verified });
    return toAdminServer(row);
  }
}
