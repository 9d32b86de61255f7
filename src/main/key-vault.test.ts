import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { desktopSettingsSchema } from './desktop-settings';
import { KeyUnavailableError, protectKey, revealKey, type SafeStorageLike } from './key-vault';

const KEY = 'tl_' + 'Zx9'.repeat(14);

/** A keychain double that really encrypts (AES-256-GCM under a key only it holds), as safeStorage does. */
function keychain(options: { available?: boolean; backend?: string } = {}): SafeStorageLike & { available: boolean } {
  const secret = crypto.randomBytes(32);
  const vault = {
    available: options.available ?? true,
    isAsyncEncryptionAvailable: async () => vault.available,
    getSelectedStorageBackend: () => options.backend ?? 'gnome_libsecret',
    encryptStringAsync: async (text: string) => {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', secret, iv);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decryptStringAsync: async (data: Buffer) => {
      const decipher = crypto.createDecipheriv('aes-256-gcm', secret, data.subarray(0, 12));
      decipher.setAuthTag(data.subarray(12, 28));
      return { result: Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8') };
    },
  };
  return vault;
}

describe('key vault', () => {
  it('keeps the key encrypted where the OS has a keychain, and reads it back', async () => {
    const safe = keychain();
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      const { stored, protection } = await protectKey(KEY, safe, platform);
      expect(protection).toBe('os-keychain');
      expect(stored.storage).toBe('safeStorage');
      expect(JSON.stringify(stored)).not.toContain(KEY.slice(3));
      // What is written validates against the settings schema.
      expect(desktopSettingsSchema.safeParse({ version: 1, server: 'team', team: { url: 'https://t.example', key: stored } }).success).toBe(true);
      await expect(revealKey(stored, safe)).resolves.toBe(KEY);
    }
  });

  it('says the key is kept as is where there is no keychain, and on Linux’s fixed-password fallback', async () => {
    for (const safe of [keychain({ available: false }), keychain({ backend: 'basic_text' })]) {
      const { stored, protection } = await protectKey(KEY, safe, 'linux');
      expect(protection).toBe('file-permissions');
      expect(stored).toEqual({ storage: 'plain', value: KEY });
      await expect(revealKey(stored, safe)).resolves.toBe(KEY);
    }
  });

  it('fails clearly when the keychain is gone or holds another secret', async () => {
    const safe = keychain();
    const { stored } = await protectKey(KEY, safe, 'darwin');
    safe.available = false;
    await expect(revealKey(stored, safe)).rejects.toThrow(/keychain, which is not available now/);
    await expect(revealKey(stored, keychain())).rejects.toBeInstanceOf(KeyUnavailableError);
  });
});
