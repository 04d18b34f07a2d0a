/**
 * A code block. One with a language is shown plain at once, then highlighted when the
 * highlighter (web/lib/highlight.ts, a chunk of its own) has loaded: the first such block shown
 * loads it, every later one reuses it. Tokens are elements built from lowlight's tree, never HTML.
 */
import { useEffect, useState } from "preact/hooks";
import type { CodePiece } from "../lib/highlight.ts";

type Highlighter = typeof import("../lib/highlight.ts");

let loading: Promise<Highlighter> | null = null;
/** The highlighter once loaded, so blocks rendered after that are highlighted in their first render. */
let loaded: Highlighter | null = null;

function loadHighlighter(): Promise<Highlighter> {
  loading ??= import("../lib/highlight.ts").then(
    (module) => (loaded = module),
    (error: unknown) => {
      // A chunk that could not be fetched (offline) is tried again by the next block.
      loading = null;
      throw error;
    },
  );
  return loading;
}

function Pieces({ pieces }: { pieces: CodePiece[] }) {
  return (
    <>
      {pieces.map((piece, i) =>
        typeof piece === "string" ? (
          piece
        ) : (
          <span key={i} class={piece.classes.join(" ")}>
            <Pieces pieces={piece.children} />
          </span>
        ),
      )}
    </>
  );
}

export function CodeBlock({ text, language }: { text: string; language: string | null }) {
  const highlight = (module: Highlighter | null) => (language && module ? module.highlightCode(language, text) : null);
  const [pieces, setPieces] = useState(() => highlight(loaded));
  useEffect(() => {
    if (!language) return;
    let current = true;
    loadHighlighter().then(
      (module) => {
        if (current) setPieces(highlight(module));
      },
      () => {
        // Without the highlighter the block stays plain text, which is all it needs.
      },
    );
    return () => {
      current = false;
    };
  }, [text, language]);
  return (
    <pre class="code-block" data-language={language ?? undefined}>
      <code class={pieces ? "hljs" : undefined}>{pieces ? <Pieces pieces={pieces} /> : text}</code>
    </pre>
  );
}
