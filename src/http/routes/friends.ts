import { Elysia } from "elysia";
import * as v from "valibot";
import type { Domain } from "../../domain/domain.ts";
import { parseInput, username } from "../../domain/shared/validation.ts";
import type { AuthPlugin } from "../auth.ts";
import { body } from "../schemas.ts";
import { LIMITS } from "../../domain/shared/limits.ts";
import { doc } from "../operation-doc.ts";
import { Success } from "../../domain/shared/shapes.ts";
import { Friend, FriendRequest, FriendRequests, FriendSearchResult, FriendVoiceActivity } from "../responses/accounts.ts";

const RequestBody = body({ username });

const SearchQuery = v.object({
  q: v.pipe(
    v.string("must be a string"),
    v.trim(),
    v.minLength(1, `must be 1-${LIMITS.account.usernameMax} characters`),
    v.maxLength(LIMITS.account.usernameMax, `must be 1-${LIMITS.account.usernameMax} characters`),
  ),
});

/** /api/v1/friends: friends, pending requests, search. */
export const friendRoutes = (domain: Domain, auth: AuthPlugin) =>
  new Elysia({ prefix: "/api/v1/friends", tags: ["Friends"] })
    .use(auth)
    .get("/", ({ user }) => domain.friends.list(user), { auth: true, detail: doc("listFriends", v.array(Friend)) })
    .get("/requests", ({ user }) => domain.friends.requests(user), { auth: true, detail: doc("listFriendRequests", FriendRequests) })
    // Accepted friends currently in voice, in channels the caller can see (docs/voice.md).
    .get("/voice-activity", ({ user }) => domain.voice.friendsActivity(user.id), { auth: true, detail: doc("listFriendsInVoice", v.array(FriendVoiceActivity)) })
    .get("/search", ({ user, query }) => domain.friends.search(user, parseInput(SearchQuery, query, "query").q), { auth: true, detail: doc("searchUsers", v.array(FriendSearchResult), { query: SearchQuery }) })
    .post(
      "/request",
      async ({ user, body, set }) => {
        const result = await domain.friends.request(user, body.username);
        if (result.accepted) return result.friend;
        set.status = 201;
        return result.request;
      },
      {
        auth: true,
        body: RequestBody,
        detail: doc("sendFriendRequest", { 200: Friend, 201: FriendRequest }, {
          errors: [404, 409],
          description: "200 with the friend when it accepts their pending request; 201 with the request otherwise.",
        }),
      },
    )
    .post("/accept/:friendId", ({ user, params }) => domain.friends.accept(user, params.friendId), { auth: true, detail: doc("acceptFriendRequest", Friend, { errors: [409] }) })
    .delete(
      "/:friendId",
      async ({ user, params }) => {
        await domain.friends.remove(user, params.friendId);
        return { success: true };
      },
      { auth: true, detail: doc("removeFriend", Success) },
    );
