/** Choices kept per device in localStorage; a browser that refuses storage keeps them for this page only. */

export function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function store(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Refused (private mode, full): the choice lasts as long as the page.
  }
}
