import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config';
import { DataLayout } from '../files';
import { storageLocation } from './open-blob-store';

describe('storageLocation', () => {
  const layout = new DataLayout('/var/lib/takeline');

  it('is the data folder itself when TAKELINE_STORAGE_URL is unset or blank (the desktop keeps its layout)', () => {
    expect(storageLocation({}, layout)).toEqual({ kind: 'folder', root: '/var/lib/takeline' });
    expect(storageLocation({ TAKELINE_STORAGE_URL: '  ' }, layout)).toEqual({ kind: 'folder', root: '/var/lib/takeline' });
  });

  it('reads a shared folder or a bucket', () => {
    expect(storageLocation({ TAKELINE_STORAGE_URL: 'file:///mnt/media/takeline' }, layout)).toEqual({ kind: 'folder', root: '/mnt/media/takeline' });
    expect(storageLocation({ TAKELINE_STORAGE_URL: 's3://media/team', TAKELINE_S3_ENDPOINT: 'http://127.0.0.1:7480' }, layout)).toMatchObject({
      kind: 's3',
      bucket: 'media',
      prefix: 'team/',
      endpoint: 'http://127.0.0.1:7480',
    });
  });

  it('refuses a bad address as a configuration error, saying why', () => {
    expect(() => storageLocation({ TAKELINE_STORAGE_URL: 's3://key:secret@media/x' }, layout)).toThrow(ConfigError);
    expect(() => storageLocation({ TAKELINE_STORAGE_URL: 'ftp://host/x' }, layout)).toThrow(/file:\/\/\/path or s3:\/\/bucket/);
  });
});
