import { loadEnv } from "../env";
import { getSecrets } from "../local-secrets";

/** Where KB files live and the key that opens stored secrets: resolved once from the validated env. */
export interface CatalogDeps {
  dataDir: string;
  encryptionKey: Buffer;
  datasetsDir: string;
}

export function catalogDeps(): CatalogDeps {
  const env = loadEnv();
  return { dataDir: env.DATA_DIR, encryptionKey: getSecrets(env).encryptionKey, datasetsDir: env.DATASETS_DIR };
}
