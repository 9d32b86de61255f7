import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ModelFileError, modelFilesPresent, verifiedModelFile } from './model-files';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'takeline-models-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const bytes = Buffer.from('model weights');
const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
fs.mkdirSync(path.join(root, 'tiny'));
fs.writeFileSync(path.join(root, 'tiny', 'm.onnx'), bytes);
const spec = { folder: 'tiny', file: 'm.onnx', sha256 };

describe('verifiedModelFile', () => {
  it('returns the path of a file whose checksum matches', () => {
    expect(verifiedModelFile(root, spec)).toBe(path.join(root, 'tiny', 'm.onnx'));
    expect(modelFilesPresent(root, [spec])).toBe(true);
  });

  it('names the folder when the models directory is not set, the file is missing or altered', () => {
    expect(() => verifiedModelFile(null, spec)).toThrow(/TAKELINE_MODELS_DIR.*tiny\/m\.onnx/);
    expect(() => verifiedModelFile(root, { ...spec, file: 'absent.onnx' })).toThrow(ModelFileError);
    expect(() => verifiedModelFile(root, { ...spec, file: 'absent.onnx' })).toThrow(/tiny model is missing/);
    expect(modelFilesPresent(root, [{ ...spec, file: 'absent.onnx' }])).toBe(false);
    expect(() => verifiedModelFile(root, { ...spec, sha256: '0'.repeat(64) })).toThrow(/damaged or a different version/);
  });
});
