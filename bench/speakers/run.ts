/**
 * Known-speaker matching across recordings (a CMU ARCTIC reading was matched to an AMI meeting's
 * "Speaker 1" at 0.977). Each voice is profiled as the service profiles a transcript speaker
 * (speech/speakers/span-profile.ts `profileOfSpans` over its speech) and every pair of voices from different
 * recordings is compared (`profileSimilarity`), as the project's speaker directory does when a recording
 * arrives.
 *
 * Identities: asr/ readers from their file names (as bench/diarization/profiles.ts; files of unknown reader
 * skipped), AMI speakers by their RTTM ids (the same id in two excerpts is the same person), the call's two
 * parties. Voices of different sources are different people. A true match: the same person in two
 * recordings; a false match: two different people at or above the threshold.
 *
 * The threshold is chosen on the tuning half (bench/lib/halves.ts: pairs whose two recordings are both
 * tuning files) as the lowest one whose false-match rate is at most 1% (a wrong name is worse than a missed
 * one); the test half (both recordings test files) only reports.
 *
 *   nice node --import tsx bench/speakers/run.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { halves, sourceOf, type Half } from '../lib/halves';
import { decodeAudio, sharedDir } from '../diarization/audio';
import { energySpans } from '../diarization/energyVad';
import { profileOfSpans } from '../../src/service/speech/speakers/span-profile';
import { DEFAULT_MATCH_THRESHOLD, profileSimilarity } from '../../src/service/speech/speakers/similarity';
import type { Span } from '../../src/service/speech/types';
import { speakerOf } from '../lib/readers';

/** A false-match rate the chosen threshold may not exceed on the tuning half. */
const MAX_FALSE_MATCH = 0.01;
/** Less speech than this gives no profile (the service profiles speakers with at least a few seconds). */
const MIN_SECONDS = 3;


interface Voice {
  recording: string;
  person: string;
  source: string;
  half: Half;
  seconds: number;
  profile: number[];
}

const seconds = (spans: Span[]) => spans.reduce((s, x) => s + x.end - x.start, 0);

async function voices(): Promise<Voice[]> {
  const out: Voice[] = [];
  const asr = path.join(sharedDir, 'audio/asr');
  const asrFiles = fs.readdirSync(asr).filter((f) => f.endsWith('.flac') && speakerOf(f)).sort();
  const diar = path.join(sharedDir, 'audio/diarization');
  const diarFiles = fs.readdirSync(diar).filter((f) => f.endsWith('.flac')).sort();
  const half = halves([...asrFiles.map((f) => f.replace(/\.flac$/, '')), ...diarFiles.map((f) => f.replace(/\.flac$/, ''))]);
  for (const file of asrFiles) {
    const name = file.replace(/\.flac$/, '');
    const pcm = await decodeAudio(path.join(asr, file));
    const spans = energySpans(pcm);
    const profile = profileOfSpans(pcm, spans);
    if (profile && seconds(spans) >= MIN_SECONDS) out.push({ recording: name, person: speakerOf(file)!, source: sourceOf(name), half: half.get(name)!, seconds: seconds(spans), profile });
  }
  for (const file of diarFiles) {
    const name = file.replace(/\.flac$/, '');
    const pcm = await decodeAudio(path.join(diar, file));
    const turns = fs
      .readFileSync(path.join(diar, `${name}.rttm`), 'utf8')
      .trim()
      .split('\n')
      .map((r) => r.split(/\s+/))
      .map((c) => ({ who: c[7]!, start: Number(c[3]), end: Number(c[3]) + Number(c[4]) }));
    // Each speaker's speech where no one else speaks, as a diarizer's clean turns.
    for (const who of new Set(turns.map((t) => t.who))) {
      const own = turns.filter((t) => t.who === who);
      const others = turns.filter((t) => t.who !== who);
      const clean: Span[] = [];
      for (const t of own) {
        let pieces: Span[] = [{ start: t.start, end: t.end }];
        for (const o of others)
          pieces = pieces.flatMap((p) => (o.end <= p.start || o.start >= p.end ? [p] : [{ start: p.start, end: o.start }, { start: o.end, end: p.end }].filter((x) => x.end - x.start > 0.05)));
        clean.push(...pieces);
      }
      const profile = profileOfSpans(pcm, clean);
      if (profile && seconds(clean) >= MIN_SECONDS) {
        const person = sourceOf(name) === 'call' ? `call-${who}` : `ami-${who}`;
        out.push({ recording: name, person, source: sourceOf(name), half: half.get(name)!, seconds: seconds(clean), profile });
      }
    }
  }
  return out;
}

interface Pair {
  same: boolean;
  crossSource: boolean;
  similarity: number;
  a: Voice;
  b: Voice;
}

function pairs(all: Voice[], half: Half): Pair[] {
  const vs = all.filter((v) => v.half === half);
  const out: Pair[] = [];
  for (let i = 0; i < vs.length; i++)
    for (let j = i + 1; j < vs.length; j++) {
      const a = vs[i]!;
      const b = vs[j]!;
      if (a.recording === b.recording) continue;
      out.push({ same: a.person === b.person, crossSource: a.source !== b.source, similarity: profileSimilarity(a.profile, b.profile), a, b });
    }
  return out;
}

function rates(ps: Pair[], t: number) {
  const same = ps.filter((p) => p.same);
  const diff = ps.filter((p) => !p.same);
  const cross = diff.filter((p) => p.crossSource);
  return {
    trueMatch: same.filter((p) => p.similarity >= t).length / Math.max(1, same.length),
    falseMatch: diff.filter((p) => p.similarity >= t).length / Math.max(1, diff.length),
    falseCross: cross.filter((p) => p.similarity >= t).length / Math.max(1, cross.length),
    same: same.length,
    diff: diff.length,
    cross: cross.length,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

const all = await voices();
const tune = pairs(all, 'tune');
const test = pairs(all, 'test');
let chosen = 1;
for (let t = 0.9; t <= 1.00001; t += 0.0005) {
  if (rates(tune, t).falseMatch <= MAX_FALSE_MATCH) {
    chosen = Math.round(t * 10000) / 10000;
    break;
  }
}
const people = new Set(all.map((v) => v.person));
console.log(`${all.length} voices of ${people.size} people in ${new Set(all.map((v) => v.recording)).size} recordings (≥ ${MIN_SECONDS} s of speech each)`);
console.log(`pairs: tuning ${tune.length} (same person ${rates(tune, 1).same}), test ${test.length} (same person ${rates(test, 1).same})`);
console.log('');
console.log('| threshold | half | true match (same person) | false match (different people) | false match, different sources |');
console.log('|---|---|---|---|---|');
for (const [label, t] of [
  [`${DEFAULT_MATCH_THRESHOLD} (current default)`, DEFAULT_MATCH_THRESHOLD],
  [`${chosen} (chosen on tuning: false match ≤ ${pct(MAX_FALSE_MATCH)})`, chosen],
] as const) {
  for (const [name, ps] of [
    ['tuning', tune],
    ['test', test],
  ] as const) {
    const r = rates(ps, t);
    console.log(`| ${label} | ${name} | ${pct(r.trueMatch)} of ${r.same} | ${pct(r.falseMatch)} of ${r.diff} | ${pct(r.falseCross)} of ${r.cross} |`);
  }
}
console.log('');
console.log('closest different-people pairs on the test half:');
for (const p of test.filter((x) => !x.same).sort((x, y) => y.similarity - x.similarity).slice(0, 5))
  console.log(`  ${p.similarity.toFixed(4)}  ${p.a.person} (${p.a.recording}) / ${p.b.person} (${p.b.recording})`);
const arcticAmi = [...tune, ...test].filter((p) => !p.same && [p.a.source, p.b.source].sort().join('/') === 'ami/cmu');
if (arcticAmi.length) console.log(`CMU ARCTIC vs AMI pairs: max similarity ${Math.max(...arcticAmi.map((p) => p.similarity)).toFixed(4)} over ${arcticAmi.length}`);
console.log('');
console.log('the trade-off (test half): threshold → true match / false match');
for (const t of [0.95, 0.96, 0.97, 0.975, 0.98, 0.985, 0.99]) {
  const r = rates(test, t);
  console.log(`  ${t.toFixed(3)} → ${pct(r.trueMatch)} / ${pct(r.falseMatch)}`);
}
// The same rates per person pair (each pair of people counts once: its share of pairs matched), so the
// readers with many files (LJSpeech, the amateur) do not dominate.
const byPeople = new Map<string, Pair[]>();
for (const p of test) {
  const key = [p.a.person, p.b.person].sort().join(' / ');
  byPeople.set(key, [...(byPeople.get(key) ?? []), p]);
}
for (const t of [DEFAULT_MATCH_THRESHOLD, chosen]) {
  const same = [...byPeople.values()].filter((ps) => ps[0]!.same);
  const diff = [...byPeople.values()].filter((ps) => !ps[0]!.same);
  const mean = (groups: Pair[][]) => groups.reduce((s, ps) => s + ps.filter((p) => p.similarity >= t).length / ps.length, 0) / Math.max(1, groups.length);
  console.log(`per person pair at ${t} (test): true match ${pct(mean(same))} over ${same.length} people, false match ${pct(mean(diff))} over ${diff.length} pairs of people`);
}
