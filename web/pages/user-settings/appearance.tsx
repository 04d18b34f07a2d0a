export function AppearanceSection() {
  return <p class="muted">Coming soon.</p>;
}
