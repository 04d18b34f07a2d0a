/**
 * The app's one session, REST client (the SDK's, on this origin, with the session's token),
 * gateway and store. The token is kept in localStorage so a reload stays logged in; any 401 (a
 * REST answer to a call that carried the token, or the gateway refusing it) ends the session and
 * the router shows the login page.
 */
import { effect, signal } from "@preact/signals";
import { Gateway, RestClient } from "../../sdk/src/client.ts";
import type { MeUser, Session } from "../lib/wire-types.ts";
import { ChatStore } from "./store.ts";
import { titleWithCount } from "../lib/notify-rules.ts";

const STORAGE_KEY = "hearth.session";

function storedSession(): Session | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Session;
    return typeof parsed?.token === "string" && parsed.user ? parsed : null;
  } catch {
    return null;
  }
}

export const session = signal<Session | null>(storedSession());
/** Why the last session ended, shown on the login page ("Your session has expired..."). */
export const signedOutReason = signal<string | null>(null);

export function signIn(next: Session): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  signedOutReason.value = null;
  session.value = next;
}

function signOut(reason: string | null = null): void {
  localStorage.removeItem(STORAGE_KEY);
  signedOutReason.value = reason;
  session.value = null;
}

/** The reader's own user as the server last answered it (me/info, a profile or image change). */
export function updateUser(user: MeUser): void {
  if (!session.value) return;
  signIn({ token: session.value.token, user });
}

/** A password change in flight: it revokes the token every request carried until it answers. */
let tokenChange: Promise<unknown> | null = null;

const expired = () => {
  // A 401 (REST or gateway) while the password changes is the old token's: it counts only if the change failed.
  if (tokenChange) {
    tokenChange.catch(() => signOut("Your session has ended. Log in again to continue."));
    return;
  }
  signOut("Your session has ended. Log in again to continue.");
};

/** A person's page does not retry a 429 behind their back: the refusal is shown where they acted. */
// A send with a nonce is retried once after a network error or a 5xx (docs/messages.md, "Idempotent sends").
export const rest = new RestClient({ baseUrl: location.origin, token: () => session.value?.token ?? null, onUnauthorized: expired, retriesOn429: 0, sendRetries: 1 });
/**
 * The gateway of this origin (docs/gateway.md): it keeps trying while the server is away, even on
 * the first connection; a request while it is down fails at once with a message the page shows.
 */
export const gateway = new Gateway({
  baseUrl: location.origin,
  token: () => session.value?.token ?? "",
  transports: ["websocket", "polling"],
  reconnect: { initialDelayMs: 500, maxDelayMs: 5000 },
  retryFirstConnection: true,
  queueWhileDisconnected: false,
});
gateway.on("closed", ({ reason }) => {
  if (reason === "Unauthorized") expired();
});
export const store = new ChatStore(rest, gateway, () => session.value?.user ?? null);
store.onOwnCustomStatus = ({ text, emoji }) => {
  const user = session.value?.user;
  if (!user) return;
  const kept = user.custom_status;
  // The event carries no expiry: the one this device knows stays when the text is the same.
  const custom_status = text === null ? null : { text, emoji, expires_at: kept?.text === text ? kept.expires_at : null };
  updateUser({ ...user, custom_status });
};

/** How long "Log out" waits for the server before forgetting the token anyway. */
const LOG_OUT_WAIT_MS = 5000;

/**
 * "Log out": the server revokes the token, then this device forgets it whatever the answer, so a
 * network failure or a token already refused (401) never keeps anyone logged in here.
 */
export async function logOut(): Promise<void> {
  try {
    await rest.request("logout", { signal: AbortSignal.timeout(LOG_OUT_WAIT_MS) });
  } catch {
    // Forgotten below all the same.
  }
  signOut();
}

/**
 * "Log out everywhere": every token of the account is revoked, then this device forgets its own.
 * A failure is thrown to the caller, who shows it: the other sessions would still be logged in.
 */
export async function logOutEverywhere(): Promise<void> {
  await rest.request("logoutEverywhere");
  signOut();
}

/**
 * "Change password": every older token of the account stops working (this one included) and the
 * answer is a fresh session, which this device continues with (the gateway connects again with it).
 */
export async function changePassword(currentPassword: string, newPassword: string): Promise<void> {
  const change = rest.request("changePassword", { body: { currentPassword, newPassword } });
  tokenChange = change;
  try {
    signIn(await change);
  } finally {
    tokenChange = null;
  }
}

// One connection per token: logging in connects and loads, logging out disconnects and forgets.
let connectedToken: string | null = null;
effect(() => {
  const token = session.value?.token ?? null;
  if (token === connectedToken) return;
  if (connectedToken) {
    gateway.close("logged out");
    store.reset();
  }
  connectedToken = token;
  if (!token) return;
  // A refused token ends the session through `closed` above; the first connection is retried otherwise.
  gateway.connect().catch(() => {});
  store.start();
  // The stored user may be stale (or the token revoked): ask once; a 401 ends the session.
  rest.request("getMe").then(updateUser, () => {});
});

// The tab's title counts what waits for the reader: "(3) Hearth".
effect(() => {
  document.title = titleWithCount(document.title, store.badgeCount.value);
});
