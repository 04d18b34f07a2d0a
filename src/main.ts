import { createApp, type App } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { TlsFileError } from "./http/listeners.ts";
import { createLogger } from "./log.ts";
import { SchemaTooNewError } from "./store/database.ts";
import { SecretsKeyError } from "./store/secret-box.ts";

// Everything Hearth writes (database, WAL, secrets, uploads) is for its own user only.
process.umask(0o077);

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

const log = createLogger(config.logLevel, config.logFormat === "text");
let app: App | undefined;
// SIGHUP (`systemctl reload`, a certbot deploy hook): the TLS certificate is read again
// (docs/operations.md, "TLS"). One that comes while starting is done once listening: the files
// may have changed after they were read, and the signal must not end the process.
let hangupWhileStarting = false;
process.on("SIGHUP", () => {
  if (app) app.reloadTls();
  else hangupWhileStarting = true;
});
try {
  app = await createApp(config, { logger: log });
} catch (error) {
  if (error instanceof SchemaTooNewError || error instanceof SecretsKeyError || error instanceof TlsFileError) {
    log.error(error.message);
    process.exit(1);
  }
  throw error;
}
if (hangupWhileStarting) app.reloadTls();
log.info(`Hearth listening on ${app.url} (REST under /api/v1, gateway at /socket.io/)`, {
  host: config.host,
  port: app.port,
  dataDir: config.dataDir,
  pid: process.pid,
});

let shuttingDown = false;
/**
 * Drains, then exits 0 (docs/operations.md, "Draining"). The drain waits DRAIN_TIMEOUT_MS at
 * most for requests in flight; should closing the database hang after that, the process still
 * ends (with 1) a little later.
 */
async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  log.info("draining", { signal, drainTimeoutMs: config!.drainTimeoutMs });
  const watchdog = setTimeout(() => {
    log.error("the drain did not finish in time; exiting", { signal });
    process.exit(1);
  }, config!.drainTimeoutMs + 15_000);
  watchdog.unref();
  await app!.stop();
  log.info("stopped");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
