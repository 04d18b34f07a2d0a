/**
 * axe-core (the npm package, run inside the page) for the browser suite: the violations of
 * impact "serious" or "critical" on what the page shows now, described for a failure message.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/** The serious and critical violations on `page`, one line each ("rule: help — selector: why"). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol: the app's Content-Security-Policy refuses inline scripts.
  if (!(await page.evaluate(`"axe" in window`))) await page.evaluate(AXE_SOURCE);
  // A string: this file is compiled without the DOM's types, and `axe` is the page's global.
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then((result) =>
    result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })))`)) as Violation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} — ${n.target.join(" ")}: ${(n.failureSummary ?? "").replace(/\s+/g, " ").trim()}`));
}
