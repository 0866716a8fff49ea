import { loadConfig } from "./config.js";
import { provisionDatabase, publishInstance, unpublishInstance } from "./db/provision.js";
import { startService } from "./app.js";

const log = (message: string) => console.log(`[billing] ${message}`);
const config = loadConfig();

const database = await provisionDatabase({
  mongodbUri: config.MONGODB_URI,
  dataDir: config.DATA_DIR,
  persistent: true,
  engine: config.EMBEDDED_DB,
  log,
});
log(`Database: ${database.engine}; data in ${database.location}`);

const service = await startService({
  mongodbUri: database.uri,
  dbName: config.MONGODB_DB,
  host: config.HOST,
  port: config.PORT,
  adminToken: config.ADMIN_TOKEN,
  maxBodyBytes: config.MAX_BODY_BYTES,
});
if (database.embedded) await publishInstance(config.DATA_DIR, database.uri);

if (database.embedded && (await service.repositories.accounts.isEmpty())) {
  const account = await service.repositories.accounts.create("default");
  const { token } = await service.repositories.tokens.create(account.id);
  log(`No account existed, so one was created: "${account.name}" (${account.id}).`);
  log(`Its API token, shown only this once:\n\n    ${token}\n`);
  log(`Try: curl -H "Authorization: Bearer ${token}" ${service.url}/customers`);
}

log(`Listening on ${service.url}: REST at /, tRPC at /trpc, OpenAPI at /openapi.json, health at /health`);
if (!config.ADMIN_TOKEN) log("Admin API disabled (set ADMIN_TOKEN to enable /admin/*)");

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal} received: shutting down`);
  await service.close();
  if (database.embedded) await unpublishInstance(config.DATA_DIR);
  await database.stop();
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
