import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import type { AuthPlugin } from "../auth.ts";
import { body } from "../schemas.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { integer } from "../../domain/shared/validation.ts";
import { NewRole, RoleChanges } from "../../domain/community/role-schemas.ts";
import { doc } from "../operation-doc.ts";
import { Role, Success } from "../../domain/shared/shapes.ts";

const id = (what: string) => v.pipe(v.string("must be a string"), v.uuid(`must be a ${what} id`));

const CreateBody = body(NewRole.entries);
const UpdateBody = body(RoleChanges.entries);
const ReorderBody = v.pipe(
  v.array(body({ id: id("role"), position: integer(0, LIMITS.role.positionMax) }), "must be an array of {id, position}"),
  v.maxLength(LIMITS.role.reorderEntries, "is too long"),
);
const AssignBody = body({ targetUserId: id("user"), roleId: id("role") });

const ok = { success: true } as const;

/**
 * /api/v1/roles. Elysia wants one parameter name per path position: `:serverId` first, `:roleId`
 * second; `role`, `reorder`, `assign` and `member` are static segments, which win over `:roleId`.
 */
export const roleRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/roles", tags: ["Roles"] })
    .use(auth)
    .get("/:serverId", ({ user, params }) => domain.roles.list(params.serverId, user.id), { auth: true, detail: doc("listRoles", v.array(Role)) })
    .post(
      "/:serverId",
      async ({ user, params, body, set }) => {
        const role = await domain.roles.create(params.serverId, user.id, body);
        set.status = 201;
        return role;
      },
      { auth: true, body: CreateBody, detail: doc("createRole", { 201: Role }) },
    )
    .get("/:serverId/role/:roleId", ({ user, params }) => domain.roles.get(params.serverId, user.id, params.roleId), { auth: true, detail: doc("getRole", Role) })
    .get("/:serverId/member/:targetUserId", ({ user, params }) => domain.roles.ofMember(params.serverId, user.id, params.targetUserId), {
      auth: true,
      detail: doc("listMemberRoles", v.array(Role)),
    })
    .put("/:serverId/reorder", ({ user, params, body }) => domain.roles.reorder(params.serverId, user.id, body), {
      auth: true,
      body: ReorderBody,
      detail: doc("reorderRoles", v.array(Role)),
    })
    .post(
      "/:serverId/assign",
      async ({ user, params, body }) => {
        await domain.roles.assign(params.serverId, user.id, body.targetUserId, body.roleId);
        return ok;
      },
      { auth: true, body: AssignBody, detail: doc("assignRole", Success) },
    )
    .delete(
      "/:serverId/assign/:targetUserId/:roleId",
      async ({ user, params }) => {
        await domain.roles.unassign(params.serverId, user.id, params.targetUserId, params.roleId);
        return ok;
      },
      { auth: true, detail: doc("unassignRole", Success) },
    )
    .put("/:serverId/:roleId", ({ user, params, body }) => domain.roles.update(params.serverId, user.id, params.roleId, body), {
      auth: true,
      body: UpdateBody,
      detail: doc("updateRole", Role),
    })
    .delete(
      "/:serverId/:roleId",
      async ({ user, params }) => {
        await domain.roles.delete(params.serverId, user.id, params.roleId);
        return ok;
      },
      { auth: true, detail: doc("deleteRole", Success) },
    );
