import fs from 'node:fs';
import path from 'node:path';
import type { EngineDescriptor } from '../registry';
import { localRecognizerModel } from '../recognizer-listing';
import { createWhisperRecognizer } from '../../speech/recognition/whisper-recognizer';
import { smartWhisperMissing } from '../../speech/recognition/whisper/addon';
import { WHISPER_CATALOGUE, whisperEngineId, type WhisperCatalogueEntry } from './catalogue';
import { languagesOf, whisperModelFiles } from './installed';
import type { TeamWhisperModels } from './team-models';

const downloadHint = (name: string) => `Download it in the studio (Settings → Speech models) or with POST /v1/speech/models/whisper/${name}/download.`;

function descriptor(spec: { id: string; name: string; file: string; multilingual: boolean; rank: number; catalogued: boolean }): EngineDescriptor {
  return {
    model: localRecognizerModel(spec.id),
    rank: spec.rank,
    languages: languagesOf(spec.multilingual),
    missing: () => {
      if (!fs.existsSync(spec.file)) return `the model file ${path.basename(spec.file)} is not in ${path.dirname(spec.file)}`;
      return smartWhisperMissing();
    },
    installHint: spec.catalogued ? downloadHint(spec.name) : `Put ${path.basename(spec.file)} back in ${path.dirname(spec.file)}.`,
    createRecognizer: () => createWhisperRecognizer({ id: spec.id, modelFile: spec.file, multilingual: spec.multilingual }),
  };
}

/**
 * Every catalogue model (listed once downloaded; asking for one that is not names how to get it) and any
 * other ggml file in the Whisper folder. Read on every call, so a download is usable as soon as it lands.
 */
export function whisperEngines(dir: string): EngineDescriptor[] {
  const catalogue = WHISPER_CATALOGUE.map((e) =>
    descriptor({ id: whisperEngineId(e.name), name: e.name, file: path.join(dir, e.file), multilingual: e.multilingual, rank: e.rank, catalogued: true }),
  );
  const custom = whisperModelFiles(dir)
    .filter((f) => f.catalogue === null)
    .map((f) => descriptor({ id: f.id, name: f.name, file: f.file, multilingual: f.multilingual, rank: f.rank, catalogued: false }));
  return [...catalogue, ...custom];
}

/**
 * A team node's Whisper engines: every catalogue model, listed once the team installed it (through any
 * node; `team.refresh` reads that), and run from this node's copy, fetched from the team's storage before use.
 */
export function teamWhisperEngines(team: TeamWhisperModels, catalogue: readonly WhisperCatalogueEntry[] = WHISPER_CATALOGUE): EngineDescriptor[] {
  return catalogue.map((entry) => {
    const id = whisperEngineId(entry.name);
    const record = () => team.record(entry.name);
    return {
      model: localRecognizerModel(id),
      rank: entry.rank,
      languages: languagesOf(entry.multilingual),
      missing: () => (record() ? smartWhisperMissing() : `${entry.file} is not installed on this team`),
      installHint: downloadHint(entry.name),
      provision: async (signal) => {
        await team.localFile(entry.name, signal);
      },
      createRecognizer: () => {
        const installed = record();
        if (!installed) throw new Error(`whisper: ${entry.file} is not installed on this team`);
        return createWhisperRecognizer({ id, modelFile: team.localPath(installed), multilingual: entry.multilingual });
      },
    };
  });
}
