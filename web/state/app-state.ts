/**
 * The app's one session, API client, gateway and store. The token is kept in localStorage so a
 * reload stays logged in; any 401 (REST, or the gateway refusing the token) ends the session and
 * the router shows the login page.
 */
import { effect, signal } from "@preact/signals";
import { Api } from "../api/api.ts";
import { Http } from "../api/client.ts";
import type { MeUser, Session } from "../api/types.ts";
import { Gateway } from "./gateway.ts";
import { ChatStore } from "./store.ts";

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

export function signOut(reason: string | null = null): void {
  localStorage.removeItem(STORAGE_KEY);
  signedOutReason.value = reason;
  session.value = null;
}

function updateUser(user: MeUser): void {
  if (!session.value) return;
  signIn({ token: session.value.token, user });
}

const expired = () => signOut("Your session has ended. Log in again to continue.");

export const api = new Api(new Http(() => session.value?.token ?? null, expired));
export const gateway = new Gateway(expired);
export const store = new ChatStore(api, gateway, () => session.value?.user ?? null);

/** How long "Log out" waits for the server before forgetting the token anyway. */
const LOG_OUT_WAIT_MS = 5000;

/**
 * "Log out": the server revokes the token, then this device forgets it whatever the answer, so a
 * network failure or a token already refused (401) never keeps anyone logged in here.
 */
export async function logOut(): Promise<void> {
  try {
    await api.logout({ signal: AbortSignal.timeout(LOG_OUT_WAIT_MS) });
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
  await api.logoutEverywhere();
  signOut();
}

// One connection per token: logging in connects and loads, logging out disconnects and forgets.
let connectedToken: string | null = null;
effect(() => {
  const token = session.value?.token ?? null;
  if (token === connectedToken) return;
  if (connectedToken) {
    gateway.disconnect();
    store.reset();
  }
  connectedToken = token;
  if (!token) return;
  gateway.connect(token);
  store.start();
  // The stored user may be stale (or the token revoked): ask once; a 401 ends the session.
  api.me().then(updateUser, () => {});
});
