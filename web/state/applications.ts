/** The client of the application and bot invite routes, on the app's one HTTP client (same session, same 401 handling). */
import { ApplicationsApi } from "../api/applications.ts";
import { api } from "./app-state.ts";

export const applications = new ApplicationsApi(api.http);
