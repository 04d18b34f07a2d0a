/**
 * HTTP to Hearth's public REST API (same origin): JSON in and out, `{error}` turned into an
 * ApiError, and a 401 on a request that carried a token reported once through `onUnauthorized`
 * (the app then returns to the login page). Uploads go through XMLHttpRequest for progress.
 */

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface HttpOptions {
  /** Extra headers (e.g. X-2FA-Code). */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface UploadProgress {
  loaded: number;
  total: number;
}

export class Http {
  constructor(
    private readonly token: () => string | null,
    private readonly onUnauthorized: () => void,
  ) {}

  async request<T>(method: string, path: string, body?: unknown, options: HttpOptions = {}): Promise<T> {
    const token = this.token();
    const headers: Record<string, string> = { ...options.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(apiUrl(path), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: options.signal,
      });
    } catch (error) {
      if ((error as Error).name === "AbortError") throw error;
      throw new ApiError(0, "Cannot reach the server. Check your connection and try again.");
    }
    return this.read<T>(response.status, await response.text(), token !== null);
  }

  get<T>(path: string, options?: HttpOptions) {
    return this.request<T>("GET", path, undefined, options);
  }
  post<T>(path: string, body?: unknown, options?: HttpOptions) {
    return this.request<T>("POST", path, body ?? {}, options);
  }
  put<T>(path: string, body?: unknown, options?: HttpOptions) {
    return this.request<T>("PUT", path, body ?? {}, options);
  }
  patch<T>(path: string, body?: unknown, options?: HttpOptions) {
    return this.request<T>("PATCH", path, body ?? {}, options);
  }
  delete<T>(path: string, options?: HttpOptions) {
    return this.request<T>("DELETE", path, undefined, options);
  }

  /** A multipart upload with progress (fetch cannot report upload progress). */
  upload<T>(path: string, form: FormData, onProgress?: (progress: UploadProgress) => void): Promise<T> {
    const token = this.token();
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", apiUrl(path));
      if (token) xhr.setRequestHeader("authorization", `Bearer ${token}`);
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) onProgress?.({ loaded: event.loaded, total: event.total });
      };
      xhr.onload = () => {
        try {
          resolve(this.read<T>(xhr.status, xhr.responseText, token !== null));
        } catch (error) {
          reject(error);
        }
      };
      xhr.onerror = () => reject(new ApiError(0, "The upload failed: the server could not be reached."));
      xhr.send(form);
    });
  }

  private read<T>(status: number, text: string, hadToken: boolean): T {
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
    }
    if (status >= 200 && status < 300) return body as T;
    if (status === 401 && hadToken) this.onUnauthorized();
    const message =
      body && typeof body === "object" && typeof (body as { error?: unknown }).error === "string"
        ? (body as { error: string }).error
        : `The server answered ${status}`;
    throw new ApiError(status, message);
  }
}

/**
 * The URL of an API path: under `/api/v1`, except the spec's unversioned routes, which are
 * given whole (`/api/webhooks/...`, docs/webhooks.md).
 */
export const apiUrl = (path: string): string => (path.startsWith("/api/") ? path : `/api/v1${path}`);

/** A readable message for anything thrown by an API call. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
