/** Files the bundler copies and hashes: importing one gives its served URL. */
declare module "*.svg" {
  const url: string;
  export default url;
}
