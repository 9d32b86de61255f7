/**
 * A dub's own name and where its lines end. A dub of the recording is named after the recording, not its file
 * (its exports then download under the dub's name, never the recording's own export names), and is ready with
 * its waveform drawn; a revoiced line that borrowed the quiet after it ends in the cue sheet where its voice
 * ends. Real service, real audio, real voices.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, revoiceToEnd, sessionSettled, uploadDub } from '../helpers/dubs';
import { startServiceProcess, type ServiceProcess } from '../helpers/service';
import { tempDir } from '../helpers/temp';

describe("a dub's name, its waveform when ready, and its cues' out", { timeout: 600_000 }, () => {
  let svc: ServiceProcess;
  let sessionId: string;
  const sessionApi = (p: string, init: RequestInit = {}) =>
    fetch(`${svc.url}/v1/speech/transcriptions/${sessionId}${p}`, {
      ...init,
      headers: { Authorization: `Bearer ${svc.key}`, ...(typeof init.body === 'string' ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    });
  const api = (p: string, init: RequestInit = {}) => sessionApi(`/dubs${p}`, init);
  const attachmentName = (res: Response) => /filename="?([^";]+)"?/.exec(res.headers.get('content-disposition') ?? '')?.[1];
  const ready = async (dubId: string) => {
    let dub = await (await api(`/${dubId}`)).json();
    for (let i = 0; i < 1200 && dub.status === 'preparing'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      dub = await (await api(`/${dubId}`)).json();
    }
    return dub;
  };

  beforeAll(async () => {
    svc = await startServiceProcess();
    sessionId = await createSession(svc, 'dub-names');
    await sessionSettled(svc, sessionId);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('names a dub of the recording after the recording (numbered from the second), and exports it under that name', async () => {
    const first = await (await api('', { method: 'POST', body: JSON.stringify({ source: 'recording' }) })).json();
    const second = await (await api('', { method: 'POST', body: JSON.stringify({ source: 'recording' }) })).json();
    expect([first.name, second.name]).toEqual(['take dub', 'take dub 2']);
    expect(first.file_name).toBe('take.flac');
    const dub = await ready(first.id);
    expect(dub.status, dub.error).toBe('ready');
    // Its waveform was drawn while it prepared: the peaks are there the moment it is ready.
    expect(fs.existsSync(path.join(svc.dataDir, 'recordings', sessionId, 'dubs', first.id, 'peaks', 'r0001.json'))).toBe(true);
    const peaks = await (await api(`/${first.id}/revisions/1/peaks`)).json();
    expect(peaks.peaks.length).toBeGreaterThan(0);

    // The recording's own exports are named after its file ("take.srt", "take.edl"); the dub's after the dub.
    const srt = await sessionApi('/export?format=srt');
    expect(attachmentName(srt)).toBe('take.srt');
    const cues = await api(`/${first.id}/export?format=cues_csv`);
    const edl = await api(`/${first.id}/export?format=edl`);
    expect([attachmentName(cues), attachmentName(edl)]).toEqual(['take dub.cues.csv', 'take dub.edl']);
    expect(await edl.text()).toContain('* FROM CLIP NAME: take dub-r1.wav');
    // A name given is kept.
    const named = await (await api('', { method: 'POST', body: JSON.stringify({ source: 'recording', name: 'Ep 104 dub' }) })).json();
    expect(named.name).toBe('Ep 104 dub');
    await ready(second.id);
    await ready(named.id);
  });

  it("ends a revoiced line that borrowed the quiet after it where its voice ends, in the cue sheet as in the line's render", async () => {
    // A second of speech-like tone at 0.5–1.5 s, quiet until 3.5 s, another at 3.5–4.5 s: the first line's new
    // reading is too long for its second even stretched, and the quiet after it is there to borrow.
    const dir = tempDir('takeline-dub-cues-');
    const master = path.join(dir, 'tones.wav');
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i'],
      "aevalsrc='0.3*sin(2*PI*220*t)*(between(t\\,0.5\\,1.5)+between(t\\,3.5\\,4.5))':s=48000:d=5.5",
      ...['-c:a', 'pcm_s16le', master],
    ]);
    const res = await uploadDub(svc, sessionId, [
      { name: 'file', file: fs.readFileSync(master), filename: 'tones.wav' },
      { name: 'lines', value: JSON.stringify([{ speaker: 'S1', start: 0.5, end: 1.5, text: 'Go.' }, { speaker: 'S1', start: 3.5, end: 4.5, text: 'Now.' }]) },
      { name: 'voices', value: JSON.stringify({ S1: 'flite/rms' }) },
    ]);
    expect(res.status, res.text()).toBe(201);
    const dubId = res.json().id;
    const edited = await api(`/${dubId}/lines/1`, { method: 'PATCH', body: JSON.stringify({ text: 'We leave before dawn.' }) });
    expect(edited.status).toBe(200);
    const revoice = await revoiceToEnd(api, dubId);
    expect(revoice.status).toBe('complete');
    const line = (await (await api(`/${dubId}/lines`)).json()).data[0];
    expect(line.state).toBe('voiced');
    expect(line.render.flags).toContain('borrowed_silence');
    expect(line.render.flags).not.toContain('does_not_fit');
    expect(line.render.speech.end).toBeGreaterThan(line.end + 0.05);
    const rows = (await (await api(`/${dubId}/export?format=cues_csv`)).text()).trimEnd().split('\r\n').map((r) => r.split(','));
    const header = rows[0]!;
    const cue = Object.fromEntries(header.map((h, i) => [h, rows[1]![i]]));
    expect(cue.line_id).toBe('1');
    expect(cue.out_seconds).toBe(line.render.speech.end.toFixed(3));
    // The line not revoiced keeps its own out.
    expect(Object.fromEntries(header.map((h, i) => [h, rows[2]![i]])).out_seconds).toBe('4.500');
  });
});
