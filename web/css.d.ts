/**
 * A component may import its own stylesheet (`import "./x.css"`): Bun's bundler adds it to the
 * app's one CSS file, also for code loaded later (the developer portal), so styles of a feature
 * live beside it instead of in the shared styles.css.
 */
declare module "*.css";
