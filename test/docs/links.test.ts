/**
 * Every relative link of the docs (docs/*.md, README.md, bench/README.md, sdk/README.md)
 * resolves: the file or folder exists, and a `#anchor` names a heading of the page it points
 * at, by GitHub's slugs (lower case, punctuation dropped, spaces as hyphens, `-1`, `-2` for a
 * repeated heading).
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const PAGES = [
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(ROOT, "docs", name)),
  join(ROOT, "README.md"),
  join(ROOT, "bench/README.md"),
  join(ROOT, "sdk/README.md"),
];

/** The text with fenced code blocks and inline code spans blanked out: links there are examples. */
const withoutCode = (text: string) => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "``");

/** GitHub's anchor of a heading's text. */
function slugOf(heading: string): string {
  const plain = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase();
  return plain.replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors a page's headings give, in GitHub's way. */
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = readFileSync(file, "utf8").replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = slugOf(heading!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

test("slugs follow GitHub's", () => {
  expect(slugOf("GET /api/v1/users/me/info")).toBe("get-apiv1usersmeinfo");
  expect(slugOf("Served files (`/uploads/`)")).toBe("served-files-uploads");
  expect(slugOf("1:1 routes (under `/api/v1/dm`, all need a token)")).toBe("11-routes-under-apiv1dm-all-need-a-token");
});

test("every relative link and anchor in the docs resolves", () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    const text = withoutCode(readFileSync(page, "utf8"));
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
      const [path, anchor] = target!.split("#") as [string, string | undefined];
      const file = path === "" ? page : join(dirname(page), decodeURIComponent(path));
      const where = `${relative(ROOT, page)}: ${target}`;
      if (!existsSync(file)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      if (statSync(file).isDirectory() || !file.endsWith(".md")) continue;
      if (!anchorsOf(file).has(decodeURIComponent(anchor).toLowerCase())) broken.push(`${where} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});
