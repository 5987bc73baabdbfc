import { type DocumentsConfig, documentsSecretsSchema } from "../backends/documents";
import { dropCollectionIndexes } from "../backends/documents/opensearch/cluster";
import { kbStorageDir, parseKbConfig, removeKbStorage } from "../backends/registry";
import { decryptSecrets } from "../crypto/secrets";
import { log } from "../log";
import type { CatalogDeps } from "../deps";

/**
 * Removes what a KB keeps outside the application database: its storage directory and, for a
 * collection in OpenSearch, its indexes. A cluster that cannot be reached does not stop the deletion;
 * its indexes stay behind, and the log says which.
 */
export async function removeKbData(
  kb: { id: string; name: string; kind: string; config: unknown; secretsCiphertext: string | null },
  deps: Pick<CatalogDeps, "dataDir" | "encryptionKey">,
): Promise<void> {
  removeKbStorage(deps.dataDir, kb.id);
  if (kb.kind !== "DOCUMENTS") return;
  try {
    const config = parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig;
    if (config.engine !== "opensearch") return;
    const secrets = documentsSecretsSchema.parse(kb.secretsCiphertext ? decryptSecrets(kb.secretsCiphertext, deps.encryptionKey) : {});
    await dropCollectionIndexes(config, secrets, { kbId: kb.id, kbName: kb.name, storageDir: kbStorageDir(deps.dataDir, kb.id) });
  } catch (err) {
    log.warn({ err, kb: kb.name }, "could not delete the collection's OpenSearch indexes; delete them on the cluster");
  }
}
