import { expect, test } from "bun:test";
import { Availability } from "../../src/store/availability.ts";

// The rule of src/store/availability.ts: an operation's outcome changes the state only when it
// began after the last change. Under load operations straddle the start and the end of an
// outage; the PostgreSQL outage fault scenario (test/faults/postgres-outage.fault.ts) meets them.
function watched() {
  const availability = new Availability();
  const changes: boolean[] = [];
  availability.onChange((available) => changes.push(available));
  return { availability, changes };
}

test("an outage is one change down and one back, whatever overlapped it", () => {
  const { availability, changes } = watched();
  const beforeOutage = availability.begin();
  const first = availability.begin();
  availability.failed(first);
  expect(availability.downSince).not.toBeNull();
  // Begun before the outage, answered after it began: old news.
  availability.answered(beforeOutage);
  expect(availability.downSince).not.toBeNull();
  const waiting = availability.begin();
  const afterRestart = availability.begin();
  availability.answered(afterRestart);
  expect(availability.downSince).toBeNull();
  // Begun while it was down, refused after it came back: old news too.
  availability.failed(waiting);
  expect(availability.downSince).toBeNull();
  expect(changes).toEqual([false, true]);
  // Every failure is counted all the same.
  expect(availability.errors).toBe(2);
});

test("a failure begun after the recovery is a new outage", () => {
  const { availability, changes } = watched();
  availability.failed(availability.begin());
  availability.answered(availability.begin());
  availability.failed(availability.begin());
  expect(changes).toEqual([false, true, false]);
  expect(availability.downSince).not.toBeNull();
});
