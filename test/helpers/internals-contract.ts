/**
 * For the contract tests of src/gateway/*-internals.ts: a failed check names the package, its
 * installed version and the member Hearth relies on, so an upgrade that changes it says what
 * to look at.
 */
export function expectMember(pkg: string, version: string, member: string, holds: boolean, expected: string): void {
  if (!holds) throw new Error(`${pkg}@${version}: ${member} is not as Hearth relies on it (${expected}); see the module of ${pkg}'s internals in src/gateway/`);
}
