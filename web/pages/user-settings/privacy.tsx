export function PrivacySection() {
  return <p class="muted">Coming soon.</p>;
}
