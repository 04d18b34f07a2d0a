export function NotificationsSection() {
  return <p class="muted">Coming soon.</p>;
}
