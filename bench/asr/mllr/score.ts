/**
 * WER of pocketsphinx_batch `-hyp` files against ../shared/audio/asr/refs.tsv (for probe.sh):
 *   node --import tsx bench/asr/mllr/score.ts /tmp/takeline-mllr/test1.hyp /tmp/takeline-mllr/test2.hyp
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sumWer, wordErrorRate } from '../../../src/service/speech/scoring/wer';
import { sharedDir } from '../../diarization/audio';

const refs = new Map(
  readFileSync(path.join(sharedDir, 'audio/asr/refs.tsv'), 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'))
    .map((f) => [f[0]!.replace(/\.flac$/, ''), f[2] ?? ''] as [string, string]),
);
for (const file of process.argv.slice(2)) {
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => /^(.*) \((\S+) -?\d+\)$/.exec(l)!)
    .map((m) => wordErrorRate(refs.get(m[2]!)!, m[1]!));
  const t = sumWer(rows);
  console.log(`${file}: ${rows.length} files, WER ${(t.wer * 100).toFixed(1)}% (S/D/I ${t.substitutions}/${t.deletions}/${t.insertions} of ${t.referenceWords})`);
}
