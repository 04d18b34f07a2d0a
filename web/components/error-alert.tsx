/** An error from the server (or the app), announced at once to screen readers. Nothing when there is none. */
export function ErrorAlert({ message }: { message: string | null | undefined }) {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}
