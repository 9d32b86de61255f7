import { describe, expect, it } from 'vitest';
import type { VoiceEngineSpec } from './voice-engine-spec';
import { VoiceRegistry } from './voice-registry';
import type { SynthesisOptions } from './voice';

function spec(id: string, rank: number, installed: boolean, calls: SynthesisOptions[] = []): VoiceEngineSpec {
  return {
    id,
    rank,
    aliases: [`${id}-alias`],
    voices: [
      { id: 'f1', gender: 'female', language: 'en-US', sample_rate: 16000, description: '' },
      { id: 'm1', gender: 'male', language: 'en-US', sample_rate: 16000, description: '' },
    ],
    defaultVoice: 'f1',
    nativeSpeed: [0.5, 2],
    licence: '',
    missing: () => (installed ? null : 'program x'),
    installHint: `install ${id}`,
    create: () => ({
      id,
      synthesize: async (_text, options) => {
        calls.push(options);
        return { samples: new Float32Array(16000), sampleRate: 16000 };
      },
      close: async () => undefined,
    }),
  };
}

describe('VoiceRegistry', () => {
  it('resolves ids, aliases and OpenAI model names to the best installed engine', () => {
    const registry = new VoiceRegistry([spec('low', 1, true), spec('high', 9, true), spec('gone', 20, false)]);
    expect(registry.installed().map((s) => s.id)).toEqual(['high', 'low']);
    expect(registry.findModel('tts-1')).toMatchObject({ ok: true, spec: { id: 'high' } });
    expect(registry.findModel('low-alias')).toMatchObject({ ok: true, spec: { id: 'low' } });
    expect(registry.findModel('gone')).toMatchObject({ ok: false, reason: 'not_installed', message: expect.stringContaining('install gone') });
    expect(registry.findModel('what')).toMatchObject({ ok: false, reason: 'unknown_model' });
    expect(new VoiceRegistry([spec('gone', 1, false)]).findModel('tts-1')).toMatchObject({ ok: false, reason: 'not_installed' });
    expect(registry.defaultRef()).toBe('high/f1');
    expect(registry.refs()).toEqual(['high/f1', 'high/m1', 'low/f1', 'low/m1']);
  });

  it("maps OpenAI's voice names by gender and reads dub voice references", () => {
    const registry = new VoiceRegistry([spec('a', 1, true)]);
    const a = registry.installed()[0]!;
    expect(registry.findVoice(a, 'onyx')?.id).toBe('m1');
    expect(registry.findVoice(a, 'nova')?.id).toBe('f1');
    expect(registry.findVoice(a, 'alloy')?.id).toBe('f1');
    expect(registry.findVoice(a, 'M1')?.id).toBe('m1');
    expect(registry.findVoice(a, 'zed')).toBeNull();
    expect(registry.lookupRef('a/m1')).toMatchObject({ ok: true, voice: { id: 'm1' } });
    expect(registry.lookupRef('a/zz')).toMatchObject({ ok: false, reason: 'unknown_voice' });
    expect(registry.lookupRef('m1')).toMatchObject({ ok: false, reason: 'unknown_model' });
  });

  it("gives OpenAI's voice names a voice of their gender, and says so where a named model has none", () => {
    const female = { ...spec('fem', 9, true), voices: [{ id: 'f1', gender: 'female' as const, language: 'en-US', sample_rate: 16000, description: '' }] };
    const registry = new VoiceRegistry([female, spec('mixed', 5, true), spec('gone', 20, false)]);
    // OpenAI's model names: the most natural engine that has a voice of the name's gender.
    expect(registry.speechVoice('tts-1', 'onyx')).toMatchObject({ ok: true, spec: { id: 'mixed' }, voice: { id: 'm1' } });
    expect(registry.speechVoice('gpt-4o-mini-tts', 'NOVA')).toMatchObject({ ok: true, spec: { id: 'fem' }, voice: { id: 'f1' } });
    expect(registry.speechVoice('tts-1', 'alloy')).toMatchObject({ ok: true, spec: { id: 'fem' }, voice: { id: 'f1' } });
    // A model named by id keeps its engine: without a male voice it is refused, naming the male voices installed.
    expect(registry.findVoice(female, 'onyx')).toBeNull();
    const refused = registry.speechVoice('fem', 'onyx');
    expect(refused).toMatchObject({ ok: false, reason: 'no_voice_of_gender' });
    expect(!refused.ok && refused.message).toMatch(/"fem" has no male voice.*Installed male voices: mixed\/m1/);
    expect(registry.speechVoice('mixed', 'echo')).toMatchObject({ ok: true, voice: { id: 'm1' } });
    expect(registry.speechVoice('fem', 'zed')).toMatchObject({ ok: false, reason: 'unknown_voice' });
    expect(registry.speechVoice('what', 'onyx')).toMatchObject({ ok: false, reason: 'unknown_model' });
    expect(new VoiceRegistry([female]).speechVoice('tts-1', 'onyx')).toMatchObject({ ok: false, reason: 'no_voice_of_gender', message: expect.stringMatching(/No installed engine has a male voice/) });
    // A speaker's default by gender: the most natural engine's voice of it.
    expect(registry.defaultRef('male')).toBe('mixed/m1');
    expect(registry.defaultRef('female')).toBe('fem/f1');
    expect(new VoiceRegistry([female]).defaultRef('male')).toBeNull();
  });

  it("speaks inside the engine's own speed range and time-stretches beyond it", async () => {
    const calls: SynthesisOptions[] = [];
    const registry = new VoiceRegistry([spec('a', 1, true, calls)]);
    const a = registry.installed()[0]!;
    expect((await registry.speak(a, 'f1', 'x', { speed: 1.5 })).samples.length).toBe(16000);
    expect(calls.at(-1)?.speed).toBe(1.5);
    // 4× asked, 2× native: the engine's second of audio is halved again.
    expect((await registry.speak(a, 'f1', 'x', { speed: 4 })).samples.length).toBe(8000);
    expect(calls.at(-1)?.speed).toBe(2);
    expect((await registry.speak(a, 'f1', 'x', { speed: 0.25 })).samples.length).toBe(32000);
  });
});

describe('festival program', () => {
  it('is TAKELINE_FESTIVAL, else the festival beside an older setting\'s text2wave, else festival on PATH', async () => {
    const { festival } = await import('./festival-hts');
    expect(festival({ TAKELINE_FESTIVAL: '/opt/f/bin/festival', TAKELINE_TEXT2WAVE: '/x/text2wave' })).toBe('/opt/f/bin/festival');
    expect(festival({ TAKELINE_TEXT2WAVE: '/opt/f/bin/text2wave' })).toBe('/opt/f/bin/festival');
    expect(festival({})).toBe('festival');
  });
});
