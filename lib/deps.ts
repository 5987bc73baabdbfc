import path from "node:path";
import { loadEnv } from "./env";
import { getSecrets } from "./local-secrets";

/** Where KB files live and the key that opens stored secrets: resolved once from the validated env. */
export interface CatalogDeps {
  /** The directory that holds kbs/<id> (STORAGE_DIR, DATA_DIR when unset): shared by every instance on one database. */
  dataDir: string;
  encryptionKey: Buffer;
  datasetsDir: string;
}

export function catalogDeps(): CatalogDeps {
  const env = loadEnv();
  // Absolute paths: backends resolve relative files against their own storage directory.
  return {
    dataDir: path.resolve(env.STORAGE_DIR ?? env.DATA_DIR),
    encryptionKey: getSecrets(env).encryptionKey,
    datasetsDir: path.resolve(env.DATASETS_DIR),
  };
}
