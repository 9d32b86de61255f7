/** A stretch of frames [start, end) and the speaker stem it belongs to (an index into the plan's speakers). */
export interface OwnedRun {
  start: number;
  end: number;
  speaker: number;
}

export interface StemSpeaker {
  /** The speaker id lines carry, e.g. `S1`. */
  id: string;
  /** The WAV's name in the zip: `speaker-<name>.wav`, unique in the zip. */
  fileName: string;
}

export interface StemPlan {
  speakers: StemSpeaker[];
  /** Sorted, disjoint runs of frames that belong to a speaker; every other frame is the background's. */
  runs: OwnedRun[];
}

export interface StemLine {
  id: number;
  speaker: string;
  /** Seconds. */
  start: number;
  end: number;
}

/** A file-name-safe form of a speaker's name (letters, digits, `-`, `_`, `.`), never empty. */
export function fileSafe(name: string): string {
  const safe = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60);
  return safe || 'speaker';
}

/**
 * Which frames go to which speaker's stem. A line's region is its own time span, widened to the region a
 * revoice of this revision rewrote for it (the slot, its crossfades and any borrowed quiet), so the new voice
 * lands whole in its speaker's stem. Where two speakers' regions overlap, the frames go to the line that
 * starts first (a frame has one owner, so the stems add up to the mix). Speakers are named by their display
 * names where the recording has them.
 */
export function stemPlan(
  lines: StemLine[],
  renders: Record<string, { region: { start_frame: number; end_frame: number } } | undefined>,
  sampleRate: number,
  frames: number,
  speakerNames: Record<string, string> = {},
): StemPlan {
  const ids = [...new Set(lines.map((l) => l.speaker))].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const used = new Set<string>();
  const speakers = ids.map((id) => {
    const base = `speaker-${fileSafe(speakerNames[id] ?? id)}`;
    let name = base;
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${base}-${n}`;
    used.add(name.toLowerCase());
    return { id, fileName: `${name}.wav` };
  });
  const index = new Map(ids.map((id, i) => [id, i]));
  const clamp = (f: number) => Math.max(0, Math.min(frames, f));
  const regions = lines
    .map((line) => {
      const region = renders[String(line.id)]?.region;
      let start = Math.round(line.start * sampleRate);
      let end = Math.round(line.end * sampleRate);
      if (region) {
        start = Math.min(start, region.start_frame);
        end = Math.max(end, region.end_frame);
      }
      return { start: clamp(start), end: clamp(end), speaker: index.get(line.speaker)! };
    })
    .filter((r) => r.end > r.start)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const runs: OwnedRun[] = [];
  let covered = 0;
  for (const region of regions) {
    const start = Math.max(region.start, covered);
    if (region.end <= start) continue;
    const last = runs.at(-1);
    if (last && last.speaker === region.speaker && last.end === start) last.end = region.end;
    else runs.push({ start, end: region.end, speaker: region.speaker });
    covered = region.end;
  }
  return { speakers, runs };
}

/** The owner of each frame in [from, from + count): a speaker's index, or -1 for the background. */
export function owners(runs: OwnedRun[], from: number, count: number): Int32Array {
  const out = new Int32Array(count).fill(-1);
  for (const run of runs) {
    if (run.end <= from || run.start >= from + count) continue;
    out.fill(run.speaker, Math.max(0, run.start - from), Math.min(count, run.end - from));
  }
  return out;
}
