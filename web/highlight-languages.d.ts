/** highlight.js ships its language modules without types of their own; each is a grammar. */
declare module "highlight.js/lib/languages/*" {
  import type { LanguageFn } from "highlight.js";
  const language: LanguageFn;
  export default language;
}
