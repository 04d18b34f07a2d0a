/** What the app shows of a failed call, and how it recognizes the server's refusals. */
import { HearthAckError, HearthApiError } from "../../sdk/src/client.ts";

/** A readable message for anything a REST call or a gateway ack threw (the server's `{error}` when it answered). */
export function errorMessage(error: unknown): string {
  if (error instanceof HearthApiError || error instanceof HearthAckError) return error.error;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Whether the server refused a call with this status (and, when given, this exact message). */
export function isRefusal(error: unknown, status: number, message?: RegExp | string): error is HearthApiError {
  if (!(error instanceof HearthApiError) || error.status !== status) return false;
  if (message === undefined) return true;
  return typeof message === "string" ? error.error === message : message.test(error.error);
}
