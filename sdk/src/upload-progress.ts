/**
 * Upload progress for the REST client: `fetch` cannot report how much of a request body was
 * sent, XMLHttpRequest can. Where XMLHttpRequest exists (browsers), a call given
 * `onUploadProgress` goes through it and answers a `Response` like fetch; elsewhere (Node, Bun)
 * the call goes through the client's fetch and reports nothing.
 */
import type { FetchLike } from "./rest.js";

export interface UploadProgress {
  loaded: number;
  total: number;
}

/** What is used of XMLHttpRequest (declared here: the SDK is also type-checked without the DOM's types). */
interface Xhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  getResponseHeader(name: string): string | null;
  send(body: unknown): void;
  abort(): void;
  readonly status: number;
  readonly responseText: string;
  readonly upload: { onprogress: ((event: { lengthComputable: boolean; loaded: number; total: number }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}

export function fetchWithUploadProgress(onProgress: (progress: UploadProgress) => void, fallback: FetchLike): FetchLike {
  const XhrClass = (globalThis as { XMLHttpRequest?: new () => Xhr }).XMLHttpRequest;
  if (!XhrClass) return fallback;
  return (input, init) =>
    new Promise((resolve, reject) => {
      const xhr = new XhrClass();
      xhr.open(init.method ?? "GET", input.href);
      for (const [name, value] of Object.entries((init.headers ?? {}) as Record<string, string>)) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress({ loaded: event.loaded, total: event.total });
      };
      xhr.onload = () => {
        const empty = xhr.status === 204 || xhr.status === 205 || xhr.status === 304;
        const headers = new Headers();
        const retryAfter = xhr.getResponseHeader("retry-after");
        if (retryAfter) headers.set("retry-after", retryAfter);
        resolve(new Response(empty ? null : xhr.responseText, { status: xhr.status, headers }));
      };
      // As fetch does: a TypeError when the server cannot be reached, an AbortError when aborted.
      xhr.onerror = () => reject(new TypeError("Failed to fetch"));
      xhr.onabort = () => reject(Object.assign(new Error("The upload was aborted."), { name: "AbortError" }));
      init.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
      xhr.send(init.body);
    });
}
