import { describe, expect, it } from 'vitest';
import { parseStorageUrl, StorageUrlError } from './storage-url';

describe('parseStorageUrl', () => {
  it('reads a shared folder', () => {
    expect(parseStorageUrl('file:///mnt/media/takeline')).toEqual({ kind: 'folder', root: '/mnt/media/takeline' });
    expect(parseStorageUrl(' file:///srv/a%20b ')).toEqual({ kind: 'folder', root: '/srv/a b' });
  });

  it('reads a bucket and prefix, with the endpoint and region from their own variables', () => {
    expect(parseStorageUrl('s3://media-bucket/takeline/prod/', { TAKELINE_S3_ENDPOINT: 'http://127.0.0.1:7480', TAKELINE_S3_REGION: 'eu-west-1' })).toEqual({
      kind: 's3',
      bucket: 'media-bucket',
      prefix: 'takeline/prod/',
      endpoint: 'http://127.0.0.1:7480',
      region: 'eu-west-1',
    });
    expect(parseStorageUrl('s3://media-bucket')).toEqual({ kind: 's3', bucket: 'media-bucket', prefix: '', endpoint: undefined, region: 'us-east-1' });
  });

  it('refuses what it cannot use, saying why', () => {
    for (const [value, env, message] of [
      ['not a url', {}, /file:\/\/\/path or s3:\/\/bucket/],
      ['postgres://x/y', {}, /not postgres:/],
      ['file://server/share', {}, /not a host/],
      ['file:///', {}, /below the root/],
      ['s3://Bad_Bucket/x', {}, /not an S3 bucket name/],
      ['s3://key:secret@bucket/x', {}, /AWS_ACCESS_KEY_ID/],
      ['s3://bucket/../x', {}, /"\.\."|\.\./],
      ['s3://bucket/x', { TAKELINE_S3_ENDPOINT: 'ftp://host' }, /http:\/\/ or https:\/\//],
    ] as const) {
      expect(() => parseStorageUrl(value, env), value).toThrow(StorageUrlError);
      expect(() => parseStorageUrl(value, env), value).toThrow(message);
    }
  });
});
