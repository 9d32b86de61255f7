import type { BlobStore } from './blob-store';
import { FolderBlobStore } from './folder-blob-store';
import type { StorageLocation } from './storage-url';

/** The store for a parsed TAKELINE_STORAGE_URL; the S3 client is loaded only when S3 is used. */
export async function openBlobStore(location: StorageLocation): Promise<BlobStore> {
  if (location.kind === 'folder') return new FolderBlobStore(location.root);
  const { S3BlobStore } = await import('./s3-blob-store');
  return new S3BlobStore(location);
}
