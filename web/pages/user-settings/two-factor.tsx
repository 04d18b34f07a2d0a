export function TwoFactorSection() {
  return <p class="muted">Coming soon.</p>;
}
