/**
 * Syntax highlighting of code blocks: lowlight (highlight.js's grammars, answering a hast tree
 * rather than HTML) with a handful of common languages. This module is only ever reached by a
 * dynamic import (web/components/code-block.tsx), so it is a chunk of its own, loaded when the
 * first code block with a language is shown, never part of the first load.
 */
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { createLowlight } from "lowlight";

/** Each grammar brings its own aliases: js, ts, py, sh, html, yml, rs, c++ and so on. */
const lowlight = createLowlight({ bash, c, cpp, css, diff, go, java, javascript, json, python, rust, sql, typescript, xml, yaml });

/** A piece of highlighted code: text, or a token (its highlight.js classes, `hljs-keyword`) around pieces. */
export type CodePiece = string | { classes: string[]; children: CodePiece[] };

type HastNode = ReturnType<typeof lowlight.highlight>["children"][number];

function pieceOf(node: HastNode): CodePiece | null {
  if (node.type === "text") return node.value;
  if (node.type !== "element") return null;
  const className = node.properties["className"];
  const classes = Array.isArray(className) ? className.filter((c): c is string => typeof c === "string") : [];
  return { classes, children: piecesOf(node.children) };
}

function piecesOf(nodes: HastNode[]): CodePiece[] {
  return nodes.flatMap((node) => {
    const piece = pieceOf(node);
    return piece === null ? [] : [piece];
  });
}

/** `code` highlighted as `language` (a name or an alias), or null when that language is not one of these. */
export function highlightCode(language: string, code: string): CodePiece[] | null {
  const name = language.toLowerCase();
  if (!lowlight.registered(name)) return null;
  return piecesOf(lowlight.highlight(name, code).children);
}
