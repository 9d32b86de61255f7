import type { StoredKey } from './desktop-settings';

/** The slice of Electron's safeStorage the vault uses (injected, so it is testable without Electron). */
export interface SafeStorageLike {
  isAsyncEncryptionAvailable(): Promise<boolean>;
  encryptStringAsync(plainText: string): Promise<Buffer>;
  decryptStringAsync(encrypted: Buffer): Promise<{ result: string }>;
  /** Linux only: which secret store backs the encryption ('basic_text' is a fixed password, no protection). */
  getSelectedStorageBackend(): string;
}

export type KeyProtection = 'os-keychain' | 'file-permissions';

/**
 * Keeps the team server's key encrypted by the OS (Keychain on macOS, DPAPI on Windows, the Secret Service or
 * KWallet on Linux). Where there is none — Linux without a secret store, where Electron falls back to a
 * fixed password ('basic_text') that protects nothing — the key is kept as it is, in the owner-only settings
 * file, and the file says so ("storage": "plain") rather than pretending.
 */
export async function protectKey(
  key: string,
  safe: SafeStorageLike,
  platform: NodeJS.Platform,
): Promise<{ stored: StoredKey; protection: KeyProtection }> {
  const realKeychain = platform !== 'linux' || safe.getSelectedStorageBackend() !== 'basic_text';
  if (realKeychain && (await safe.isAsyncEncryptionAvailable())) {
    const encrypted = await safe.encryptStringAsync(key);
    return { stored: { storage: 'safeStorage', encrypted: encrypted.toString('base64') }, protection: 'os-keychain' };
  }
  return { stored: { storage: 'plain', value: key }, protection: 'file-permissions' };
}

export class KeyUnavailableError extends Error {
  override name = 'KeyUnavailableError';
}

/** The key back; fails clearly when the OS keychain that encrypted it is not available now. */
export async function revealKey(stored: StoredKey, safe: SafeStorageLike): Promise<string> {
  if (stored.storage === 'plain') return stored.value;
  if (!(await safe.isAsyncEncryptionAvailable())) {
    throw new KeyUnavailableError('the team server’s key was encrypted by the system keychain, which is not available now');
  }
  try {
    return (await safe.decryptStringAsync(Buffer.from(stored.encrypted, 'base64'))).result;
  } catch (error) {
    throw new KeyUnavailableError(`the team server’s key could not be decrypted (${(error as Error).message})`);
  }
}
