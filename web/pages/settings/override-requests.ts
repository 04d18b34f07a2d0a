/**
 * Permission overrides live on a channel or a category (docs/channels.md): two families of
 * operations in the reference, picked here by the target.
 */
import type { RestClient } from "../../../sdk/src/client.ts";
import type { PermissionOverride } from "../../lib/wire-types.ts";

export type OverrideTarget = { kind: "channel" | "category"; id: string };

export function listOverrides(rest: RestClient, target: OverrideTarget): Promise<PermissionOverride[]> {
  const params = { id: target.id };
  return target.kind === "channel" ? rest.request("listChannelOverrides", { params }) : rest.request("listCategoryOverrides", { params });
}

export function setOverride(rest: RestClient, target: OverrideTarget, roleId: string, allow: number, deny: number): Promise<PermissionOverride> {
  const args = { params: { id: target.id, roleId }, body: { allow, deny } };
  return target.kind === "channel" ? rest.request("setChannelOverride", args) : rest.request("setCategoryOverride", args);
}

export function resetOverride(rest: RestClient, target: OverrideTarget, roleId: string): Promise<unknown> {
  const args = { params: { id: target.id, roleId } };
  return target.kind === "channel" ? rest.request("resetChannelOverride", args) : rest.request("resetCategoryOverride", args);
}
