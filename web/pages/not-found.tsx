import { session } from "../state/app-state.ts";
import { AuthLayout } from "./auth-layout.tsx";

export function NotFoundPage() {
  return (
    <AuthLayout title="Page not found" subtitle="There is nothing at this address.">
      <p>
        <a href={session.value ? "/channels/@me" : "/login"}>{session.value ? "Back to your messages" : "Go to the login page"}</a>
      </p>
    </AuthLayout>
  );
}
