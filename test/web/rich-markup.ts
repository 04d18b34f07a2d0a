/** parseRich's nodes as short markup (`<b>`, `<sp>`, `<q>`, `<h1>`, `<ul><li>`, `<ml url>`, `{t unix style}`), for tables of cases. */
import type { RichNode } from "../../web/lib/markdown.ts";

/** Rich nodes as short markup, so a table of long cases stays readable. */
const TAG = { bold: "b", italic: "i", underline: "u", strike: "s", spoiler: "sp", quote: "q", subtext: "small" } as const;
export function show(nodes: RichNode[]): string {
  return nodes
    .map((node) => {
      switch (node.kind) {
        case "text":
          return node.text;
        case "bold":
        case "italic":
        case "underline":
        case "strike":
        case "spoiler":
        case "quote":
        case "subtext":
          return `<${TAG[node.kind]}>${show(node.children)}</${TAG[node.kind]}>`;
        case "heading":
          return `<h${node.level}>${show(node.children)}</h${node.level}>`;
        case "list": {
          const tag = node.ordered ? "ol" : "ul";
          return `<${tag}${node.ordered && node.start !== 1 ? ` ${node.start}` : ""}>${node.items.map((item) => `<li>${show(item)}</li>`).join("")}</${tag}>`;
        }
        case "maskedLink":
          return `<ml ${node.url}>${show(node.children)}</ml>`;
        case "timestamp":
          return `{t ${node.unix} ${node.style}}`;
        case "code":
          return `<code>${node.text}</code>`;
        case "codeblock":
          return `<pre${node.language ? ` ${node.language}` : ""}>${node.text}</pre>`;
        case "link":
          return `<a ${node.url}>`;
        case "emoji":
          return `{emoji ${node.name}}`;
        case "everyone":
          return `{${node.text}}`;
        default:
          return `{${node.kind}}`;
      }
    })
    .join("");
}
