/** Style sheets imported by a module are bundled into the app's CSS by Bun's bundler (web/build.ts). */
declare module "*.css";
