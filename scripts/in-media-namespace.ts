/**
 * Runs a command inside the media tests' network namespace (scripts/media-namespace.ts), e.g.
 * `bun scripts/in-media-namespace.ts bun bench/voice-sfu.ts`: what needs a Janus and a coturn
 * of its own with every packet kept on this machine. Exits with the command's code.
 */
import { runInMediaNamespace } from "./media-namespace.ts";

const command = process.argv.slice(2);
if (command.length === 0) {
  console.error("usage: bun scripts/in-media-namespace.ts <command> [args...]");
  process.exit(2);
}
process.exit(await runInMediaNamespace(command, "in-media-namespace"));
